import { describe, expect, it } from "vitest";
import * as Contact from "../src/Contact.ts";

describe("contact syntax", () => {
  it("accepts E.164 numbers only", () => {
    const numbers = [
      "+33612345678",
      "+1234567",
      "+123456789012345",
      "+123456",
      "+1234567890123456",
      "+0612345678",
      "0612345678",
    ];
    expect(numbers.map(Contact.isE164)).toEqual([true, true, true, false, false, false, false]);
  });

  it("accepts ordinary e-mail addresses up to 320 characters", () => {
    const emails = [
      "ada@example.com",
      "a.b+c@sub.example.co",
      "a@b",
      "a@@b.com",
      "a b@c.com",
      `${"a".repeat(309)}@example.com`,
    ];
    expect(emails.map(Contact.isEmail)).toEqual([true, true, false, false, false, false]);
  });
});

describe("costly destinations", () => {
  it("matches satellite and premium-rate prefixes", () => {
    const numbers = [
      "+881612345678",
      "+870123456",
      "+19005550100",
      "+12025550100",
      "+449012345678",
      "+447911123456",
      "+33891234567",
      "+33612345678",
    ];
    expect(numbers.map(Contact.isCostlyDestination)).toEqual([true, true, true, false, true, false, true, false]);
  });
});
