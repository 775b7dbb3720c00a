import { Either, Schema } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as Money from "../src/Money.ts";

const reasonOf = (result: Either.Either<number, Money.InvalidAmount>): string | undefined =>
  Either.isLeft(result) ? result.left.reason : undefined;

describe("exponent", () => {
  it("follows ISO 4217 and defaults to 2 for an unknown well-formed code", () => {
    expect([Money.exponent("EUR"), Money.exponent("HUF"), Money.exponent("JPY"), Money.exponent("ISK")]).toEqual([
      2, 2, 0, 0,
    ]);
    expect([Money.exponent("KWD"), Money.exponent("TND"), Money.exponent("XOF"), Money.exponent("ABC")]).toEqual([
      3, 3, 0, 2,
    ]);
  });
});

describe("toMinor", () => {
  it("maps JSON amounts exactly", () => {
    expect(Money.toMinor(12.34, "EUR")).toEqual(Either.right(1234));
    expect(Money.toMinor(0.29, "EUR")).toEqual(Either.right(29));
    expect(Money.toMinor(1.1, "EUR")).toEqual(Either.right(110));
    expect(Money.toMinor(100, "JPY")).toEqual(Either.right(100));
    expect(Money.toMinor(1.234, "KWD")).toEqual(Either.right(1234));
    expect(Money.toMinor(-12.34, "EUR")).toEqual(Either.right(-1234));
    expect(Money.toMinor(0, "EUR")).toEqual(Either.right(0));
    expect(Object.is(Either.getOrThrow(Money.toMinor(-0, "EUR")), 0)).toBe(true);
    expect(Money.toMinor(999_999_999_999_999, "JPY")).toEqual(Either.right(Money.maxMinor));
    expect(Money.toMinor(9_999_999_999_999.99, "EUR")).toEqual(Either.right(Money.maxMinor));
    expect(Money.toMinor(1e20 / 1e8, "EUR")).toEqual(Either.right(1e14));
  });

  it("rejects float noise and excess precision instead of rounding", () => {
    expect(reasonOf(Money.toMinor(0.1 + 0.2, "EUR"))).toBe("too_precise");
    expect(reasonOf(Money.toMinor(1.005, "EUR"))).toBe("too_precise");
    expect(reasonOf(Money.toMinor(1.5, "JPY"))).toBe("too_precise");
    expect(reasonOf(Money.toMinor(1e-7, "EUR"))).toBe("too_precise");
    const result = Money.toMinor(12.345, "EUR");
    expect(Either.isLeft(result) && result.left.message).toBe("has more than 2 decimal(s) for EUR");
  });

  it("rejects non-finite amounts, more than 15 digits and malformed currencies", () => {
    expect(reasonOf(Money.toMinor(Number.NaN, "EUR"))).toBe("not_finite");
    expect(reasonOf(Money.toMinor(Number.POSITIVE_INFINITY, "EUR"))).toBe("not_finite");
    expect(reasonOf(Money.toMinor(1e15, "JPY"))).toBe("out_of_range");
    expect(reasonOf(Money.toMinor(9007199254740992, "JPY"))).toBe("out_of_range");
    expect(reasonOf(Money.toMinor(1e21, "JPY"))).toBe("out_of_range");
    expect(reasonOf(Money.toMinor(-1e13, "EUR"))).toBe("out_of_range");
    expect(reasonOf(Money.toMinor(1e13, "EUR"))).toBe("out_of_range");
    expect(reasonOf(Money.toMinor(12, "eur"))).toBe("invalid_currency");
    expect(reasonOf(Money.toMinor(12, "EURO"))).toBe("invalid_currency");
  });
});

describe("fromMinor and format", () => {
  it("returns the JSON number of minor units", () => {
    expect(Money.fromMinor(1234, "EUR")).toBe(12.34);
    expect(Money.fromMinor(5, "JPY")).toBe(5);
    expect(Money.fromMinor(1234, "KWD")).toBe(1.234);
    expect(Money.fromMinor(-5, "EUR")).toBe(-0.05);
  });

  it("formats with exactly the currency's decimals", () => {
    expect(Money.format(123456, "EUR")).toBe("1234.56");
    expect(Money.format(5, "EUR")).toBe("0.05");
    expect(Money.format(-5, "EUR")).toBe("-0.05");
    expect(Money.format(0, "EUR")).toBe("0.00");
    expect(Money.format(1234, "JPY")).toBe("1234");
    expect(Money.format(1, "KWD")).toBe("0.001");
    expect(Money.format(Money.maxMinor, "EUR")).toBe("9999999999999.99");
  });
});

describe("readsExactly", () => {
  it("accepts any spelling of the decimal a number holds: exponents, zeros, signs", () => {
    const texts: ReadonlyArray<[string, number]> = [
      ["12.34", 12.34],
      ["12.3400000", 12.34],
      ["1.25E1", 12.5],
      ["0.05", 0.05],
      ["5e-2", 0.05],
      ["1E+21", 1e21],
      ["-0", -0],
      ["-0.000", -0],
      ["0e7", 0],
      ["9999999999999.99", 9999999999999.99],
      ["0.30000000000000004", 0.30000000000000004],
    ];
    expect(texts.map(([text, value]) => Money.readsExactly(text, value))).toEqual(texts.map(() => true));
  });

  it("refuses a text with more significant digits than the number read from it keeps", () => {
    const texts = [
      "12.3400000000000000001",
      "1.000000000000000000001",
      "9007199254740993",
      "0.1000000000000000055511151231257827",
    ];
    expect(texts.map((text) => Money.readsExactly(text, JSON.parse(text) as number))).toEqual(texts.map(() => false));
  });

  it("holds for the shortest text of every number", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        expect(Money.readsExactly(JSON.stringify(value), value)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("CurrencyCode", () => {
  it("accepts 3 upper-case letters only", () => {
    const decode = Schema.decodeUnknownEither(Money.CurrencyCode);
    expect(decode("EUR")).toEqual(Either.right("EUR"));
    expect(Either.isLeft(decode("eur"))).toBe(true);
    expect(Either.isLeft(decode("EU"))).toBe(true);
    expect(Either.isLeft(decode(978))).toBe(true);
  });
});

const currencies = fc.constantFrom("EUR", "USD", "JPY", "KWD", "CLP", "TND", "SEK", "XYZ");

describe("properties", () => {
  it("round-trips every safe minor amount through its JSON number", () => {
    fc.assert(
      fc.property(fc.integer({ min: -Money.maxMinor, max: Money.maxMinor }), currencies, (minor, currency) => {
        const amount = Money.fromMinor(minor, currency);
        expect(Money.toMinor(amount, currency)).toEqual(Either.right(minor));
        expect(Money.fromMinor(Either.getOrThrow(Money.toMinor(amount, currency)), currency)).toBe(amount);
        expect(Number(Money.format(minor, currency))).toBe(amount);
      }),
      { numRuns: 2000 },
    );
  });

  it("rejects one decimal more than the currency allows", () => {
    // Up to 15 significant digits the decimal text survives JSON parsing exactly.
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 12 }),
        fc.integer({ min: 1, max: 9 }),
        currencies,
        (minor, digit, currency) => {
          const text = Money.format(minor, currency);
          const amount = Number(Money.exponent(currency) === 0 ? `${text}.${digit}` : `${text}${digit}`);
          const result = Money.toMinor(amount, currency);
          expect(Either.isLeft(result) && result.left.reason).toBe("too_precise");
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("inexactNumbers", () => {
  it("finds each rounded number by the object holding it and its key, and nothing in strings or exact numbers", () => {
    const found = Money.inexactNumbers(
      '{"amount":12.3400000000000000001,"id":"12345678901234567890","debts":[{"amount":1.5},{"amount":0.100000000000000000001}]}',
    );
    const value = found?.value as { debts: ReadonlyArray<unknown> };
    expect(found?.at(value, "amount")).toBe(
      "has more significant digits than a number holds exactly: 12.3400000000000000001 would read as 12.34",
    );
    expect(found?.at(value, "id")).toBeUndefined();
    expect(found?.at(value.debts[0], "amount")).toBeUndefined();
    expect(found?.at(value.debts[1], "amount")).toContain("would read as 0.1");
    expect(Money.inexactNumbers('{"amount":12.34,"id":"12345678901234567890"}')).toBeUndefined();
    expect(Money.inexactNumbers('{"amount":12.3400000000000000001')).toBeUndefined();
  });
});
