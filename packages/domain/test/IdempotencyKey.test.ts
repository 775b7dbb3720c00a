import { describe, expect, it } from "vitest";
import { IdempotencyKey } from "../src/index.ts";

describe("IdempotencyKey.parse", () => {
  it("takes a bare key of visible ASCII as it is", () => {
    expect(IdempotencyKey.parse("8e03978e-40d5-43e8-bc93-6894a57f9324")).toBe("8e03978e-40d5-43e8-bc93-6894a57f9324");
    expect(IdempotencyKey.parse("order:1042/retry#1")).toBe("order:1042/retry#1");
  });

  it("unquotes a Structured Field string, escapes included", () => {
    expect(IdempotencyKey.parse('"8e03978e-40d5"')).toBe("8e03978e-40d5");
    expect(IdempotencyKey.parse('"with space"')).toBe("with space");
    expect(IdempotencyKey.parse('"a\\"b\\\\c"')).toBe('a"b\\c');
  });

  it("drops the spaces around the value", () => {
    expect(IdempotencyKey.parse("  key-1 \t")).toBe("key-1");
  });

  it("refuses empty keys, spaces, control and non-ASCII characters, stray quotes and backslashes", () => {
    for (const value of [
      "",
      "   ",
      '""',
      "two words",
      "tab\tinside",
      "caf\u00e9",
      "nul\u0000",
      '"open',
      'mid"dle',
      "back\\slash",
      '"bad\\escape"',
      '"new\nline"',
    ]) {
      expect(IdempotencyKey.parse(value), JSON.stringify(value)).toBeUndefined();
    }
  });

  it("accepts 255 characters and refuses 256, quoted or not", () => {
    const longest = "k".repeat(IdempotencyKey.maxLength);
    expect(IdempotencyKey.parse(longest)).toBe(longest);
    expect(IdempotencyKey.parse(`"${longest}"`)).toBe(longest);
    expect(IdempotencyKey.parse(`${longest}k`)).toBeUndefined();
    expect(IdempotencyKey.parse(`"${longest}k"`)).toBeUndefined();
  });
});
