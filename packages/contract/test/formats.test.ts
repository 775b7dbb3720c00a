import { Schema } from "effect";
import { describe, expect, it } from "vitest";
import { CreditorDateTime, IsoOffsetDateTime, UtcDateTime, formatCreditorTimestamp, formatIsoOffset } from "../src/formats.ts";
import { parseScopeList } from "../src/scopes.ts";

const instant = new Date("2026-03-04T05:06:07.089Z");

describe("wire formats of contract 2.1", () => {
  it("write creditor timestamps as YYYY-MM-DD HH:mm:ss", () => {
    expect(formatCreditorTimestamp(instant)).toBe("2026-03-04 05:06:07");
    expect(Schema.encodeSync(CreditorDateTime)(instant)).toBe("2026-03-04 05:06:07");
  });

  it("write followup, debt and company timestamps as ISO 8601 with +00:00", () => {
    expect(formatIsoOffset(instant)).toBe("2026-03-04T05:06:07+00:00");
    expect(Schema.encodeSync(IsoOffsetDateTime)(instant)).toBe("2026-03-04T05:06:07+00:00");
  });

  it("write snapshot timestamps as ISO 8601 UTC with Z", () => {
    expect(Schema.encodeSync(UtcDateTime)(instant)).toBe("2026-03-04T05:06:07.089Z");
  });

  it("decode what they encode", () => {
    expect(Schema.decodeSync(CreditorDateTime)("2026-03-04 05:06:07").toISOString()).toBe("2026-03-04T05:06:07.000Z");
    expect(Schema.decodeSync(IsoOffsetDateTime)("2026-03-04T07:06:07+02:00").toISOString()).toBe("2026-03-04T05:06:07.000Z");
  });
});

describe("scope lists", () => {
  it("split on spaces, drop duplicates and set unknown words apart", () => {
    expect(parseScopeList("debts:read  debts:read company:read admin")).toEqual({
      scopes: ["debts:read", "company:read"],
      unknown: ["admin"],
    });
  });
});
