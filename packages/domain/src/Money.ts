/**
 * Exact money: amounts are integer minor units (cents, öre, fils…) chosen by
 * the ISO 4217 exponent of their currency. JSON numbers are converted at the
 * edge through their shortest decimal text, so `12.34` EUR is exactly `1234`
 * and float noise such as `0.1 + 0.2` is rejected instead of rounded away.
 */
import { Data, Either, Schema } from "effect";
import * as JsonText from "@dc/json-text";

const currencyPattern = /^[A-Z]{3}$/;

/** A 3-letter upper-case ISO 4217 currency code such as `EUR`. */
export const CurrencyCode = Schema.String.annotations({ message: () => "must be a string" })
  .pipe(
    Schema.pattern(currencyPattern, {
      message: () => "must be a 3-letter upper-case ISO 4217 currency code",
    }),
  )
  .annotations({ identifier: "CurrencyCode" });
export type CurrencyCode = typeof CurrencyCode.Type;

/** Tells whether `code` is a well-formed currency code (3 upper-case letters). */
export const isCurrencyCode = (code: string): boolean => currencyPattern.test(code);

/** ISO 4217 minor-unit exponents of common currencies; a well-formed code not listed uses 2. */
// prettier-ignore
export const exponents: Readonly<Record<string, number>> = {
  EUR: 2, USD: 2, GBP: 2, CHF: 2, SEK: 2, NOK: 2, DKK: 2, PLN: 2, CZK: 2, HUF: 2,
  RON: 2, BGN: 2, TRY: 2, CAD: 2, AUD: 2, NZD: 2, MXN: 2, BRL: 2, ZAR: 2, INR: 2,
  CNY: 2, SGD: 2, HKD: 2, MAD: 2, AED: 2, SAR: 2, ILS: 2, EGP: 2, NGN: 2, KES: 2,
  ARS: 2, COP: 2, PEN: 2, THB: 2, MYR: 2, IDR: 2, PHP: 2, TWD: 2, UAH: 2, RSD: 2,
  JPY: 0, KRW: 0, ISK: 0, CLP: 0, XOF: 0, XAF: 0, XPF: 0, VND: 0, UGX: 0, PYG: 0,
  RWF: 0, KMF: 0, GNF: 0, DJF: 0, BIF: 0, VUV: 0,
  KWD: 3, BHD: 3, JOD: 3, OMR: 3, TND: 3, IQD: 3, LYD: 3,
  CLF: 4, UYW: 4,
};

/** Minor-unit exponent of a currency; 2 for a code missing from the table. */
export const exponent = (currency: string): number => exponents[currency] ?? 2;

/**
 * Largest magnitude in minor units: 15 digits, not the safe-integer limit,
 * because a double keeps any 15-significant-digit decimal exactly, so every
 * accepted amount survives the JSON number round trip (`fromMinor` then
 * `toMinor`); 16 digits do not (`78799160913343.69` reads back as `…3.7`).
 */
export const maxMinor = 999_999_999_999_999;

/** Why an amount could not be expressed in minor units. */
export class InvalidAmount extends Data.TaggedError("InvalidAmount")<{
  readonly reason: "not_finite" | "too_precise" | "out_of_range" | "invalid_currency";
  readonly message: string;
}> {}

interface DecimalParts {
  readonly integer: string;
  readonly fraction: string;
}

/** Splits a non-negative finite number into the digits of its shortest decimal text. */
const decimalParts = (abs: number): DecimalParts => {
  // String() yields the shortest text that round-trips, e.g. "12.34", "1e-7", "1e+21".
  const text = String(abs);
  const e = text.indexOf("e");
  const mantissa = e === -1 ? text : text.slice(0, e);
  const shift = e === -1 ? 0 : Number(text.slice(e + 1));
  const dot = mantissa.indexOf(".");
  const digits = dot === -1 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  const point = (dot === -1 ? mantissa.length : dot) + shift;
  if (point <= 0) return { integer: "0", fraction: "0".repeat(-point) + digits };
  if (point >= digits.length) return { integer: digits + "0".repeat(point - digits.length), fraction: "" };
  return { integer: digits.slice(0, point), fraction: digits.slice(point) };
};

/**
 * Converts a JSON amount to integer minor units of `currency`, exactly.
 *
 * Fails on NaN/±Infinity, on more decimals than the currency allows and on
 * magnitudes above `maxMinor`.
 *
 * @example
 * toMinor(12.34, "EUR") // Either.right(1234)
 * toMinor(0.1 + 0.2, "EUR") // Either.left(InvalidAmount too_precise)
 */
export const toMinor = (amount: number, currency: string): Either.Either<number, InvalidAmount> => {
  if (!isCurrencyCode(currency)) {
    return Either.left(new InvalidAmount({ reason: "invalid_currency", message: `unknown currency "${currency}"` }));
  }
  if (!Number.isFinite(amount)) {
    return Either.left(new InvalidAmount({ reason: "not_finite", message: "must be a finite number" }));
  }
  const exp = exponent(currency);
  const { integer, fraction: rawFraction } = decimalParts(Math.abs(amount));
  const fraction = rawFraction.replace(/0+$/, "");
  if (fraction.length > exp) {
    return Either.left(
      new InvalidAmount({
        reason: "too_precise",
        message: `has more than ${exp} decimal(s) for ${currency}`,
      }),
    );
  }
  const magnitude = Number(integer + fraction.padEnd(exp, "0"));
  if (!(magnitude <= maxMinor)) {
    return Either.left(new InvalidAmount({ reason: "out_of_range", message: `is too large for ${currency}` }));
  }
  return Either.right(amount < 0 && magnitude !== 0 ? -magnitude : magnitude);
};

const numberText = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A JSON number text as significant digits and a decimal exponent (`"120.50"` -> `"1205e3"`), or the text itself when it is not one. */
const canonicalDecimal = (text: string): string => {
  const match = numberText.exec(text);
  if (match === null) return text;
  const all = (match[1] ?? "") + (match[2] ?? "");
  const significant = all.replace(/^0+/, "");
  const digits = significant.replace(/0+$/, "");
  if (digits === "") return "0";
  const point = (match[1] ?? "").length + Number(match[3] ?? "0") - (all.length - significant.length);
  return `${text.startsWith("-") ? "-" : ""}${digits}e${point}`;
};

/**
 * Tells whether the JSON number text `source` denotes exactly the decimal
 * that `toMinor` reads from `value`, the double parsed from it. A text with
 * more significant digits than a double keeps (`12.3400000000000000001`)
 * parses as a neighbouring decimal (`12.34`): reading it would round an
 * amount silently, which this module refuses to do.
 *
 * @example
 * readsExactly("1.25E1", 12.5) // true
 * readsExactly("12.3400000000000000001", 12.34) // false
 */
export const readsExactly = (source: string, value: number): boolean =>
  canonicalDecimal(source) === canonicalDecimal(String(value));

// An inexact number has more than 15 significant digits, so its text holds at least 16
// digits, and a number of a JSON text follows `:`, `,` or `[` and whitespace. Digits
// inside strings (long numeric ids) do not count: they would re-parse every such body.
// The test takes about 1 ms per MB; a body that passes it is re-parsed (about 40 ms per MB).
const MAYBE_INEXACT = /[:,[]\s*-?[\d.]{16}/;

/** The numbers of a JSON text that JSON.parse would round, found by the object holding them and their key. */
export interface InexactNumbers {
  /** The parsed text: its objects are the holders `at` knows. */
  readonly value: unknown;
  /** Why the number under `key` of `holder` (an object of `value`) is inexact, or undefined when it is exact. */
  readonly at: (holder: unknown, key: string) => string | undefined;
}

/**
 * Finds the numbers of the JSON text `jsonText` that have more significant
 * digits than a double holds (`12.3400000000000000001`, which JSON.parse reads
 * as `12.34`): reading them would round an amount silently. Undefined when
 * there are none or the text is not JSON; a text with no number of 16 digits
 * or more is not parsed.
 */
export const inexactNumbers = (jsonText: string): InexactNumbers | undefined => {
  if (!MAYBE_INEXACT.test(jsonText)) return undefined;
  const inexact = new Map<object, Map<string, string>>();
  let value: unknown;
  try {
    // Not JSON.parse's reviver alone: V8 can misread an escaped key there (docs/decisions/0210).
    value = JsonText.parseWithNumberSources(jsonText, (holder, key, item, source) => {
      if (readsExactly(source, item)) return;
      const keys = inexact.get(holder) ?? new Map<string, string>();
      keys.set(key, `has more significant digits than a number holds exactly: ${source} would read as ${item}`);
      inexact.set(holder, keys);
    });
  } catch {
    return undefined;
  }
  if (inexact.size === 0) return undefined;
  return {
    value,
    at: (holder, key) =>
      typeof holder === "object" && holder !== null ? inexact.get(holder)?.get(key) : undefined,
  };
};

/**
 * The first number under `holder` (an object or array of `inexact.value`, such
 * as a debt's free-form `metadata`) that JSON.parse rounded: its path below
 * `holder` (`refs.1.ext_id`) and why. Undefined when every number there is
 * exact. Iterative: a body's nesting cannot exhaust the stack.
 */
export const firstInexactWithin = (
  inexact: InexactNumbers,
  holder: unknown,
): { readonly path: string; readonly message: string } | undefined => {
  const stack: Array<{ readonly value: unknown; readonly path: string }> = [{ value: holder, path: "" }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path } = item;
    if (typeof value !== "object" || value === null) continue;
    const keys = Array.isArray(value) ? value.map((_, index) => String(index)) : Object.keys(value);
    for (const key of keys.reverse()) {
      const keyPath = path === "" ? key : `${path}.${key}`;
      const message = inexact.at(value, key);
      if (message !== undefined) return { path: keyPath, message };
      stack.push({ value: (value as Record<string, unknown>)[key], path: keyPath });
    }
  }
  return undefined;
};

/**
 * Converts integer minor units back to the JSON number for output.
 * `minor / 10^exp` is one correctly rounded division of exact operands, so it
 * yields the double nearest to the decimal value: `fromMinor(1234, "EUR")` is `12.34`.
 */
export const fromMinor = (minor: number, currency: string): number => {
  const exp = exponent(currency);
  return exp === 0 ? minor : minor / 10 ** exp;
};

/**
 * Formats integer minor units as plain decimal text with exactly the
 * currency's number of decimals (the debt's `amount_text`).
 * Precondition: `minor` is an integer within ±`maxMinor`.
 *
 * @example format(123456, "EUR") // "1234.56"
 */
export const format = (minor: number, currency: string): string => {
  const exp = exponent(currency);
  const sign = minor < 0 ? "-" : "";
  const digits = String(Math.abs(minor));
  if (exp === 0) return sign + digits;
  const padded = digits.padStart(exp + 1, "0");
  return `${sign}${padded.slice(0, padded.length - exp)}.${padded.slice(padded.length - exp)}`;
};
