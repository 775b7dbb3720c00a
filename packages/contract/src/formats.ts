/**
 * Wire formats of contract 2.1: handlers hold Dates, the wire holds strings.
 * Each schema decodes the string form and encodes a Date to exactly that form.
 */
import { Dates } from "@dc/domain";
import { type FastCheck, ParseResult, Schema } from "effect";

/** `2026-11-21T16:03:18+00:00`: followup, debt and company timestamps. */
export const formatIsoOffset = Dates.formatIsoOffset;
/** `2026-11-21 16:03:18` (UTC): creditor createdAt and updatedAt. */
export const formatCreditorTimestamp = (date: Date): string => `${Dates.utcDate(date)} ${Dates.utcTime(date)}`;
/** `2026-11-21T16:03:18.123Z`: snapshot timestamps. */
export const formatUtc = (date: Date): string => date.toISOString();

const dateFromString = (pattern: string, description: string, format: (date: Date) => string, example: string) =>
  Schema.transformOrFail(
    Schema.String.annotations({ description, examples: [example], ...(pattern === "" ? {} : { pattern }) }),
    Schema.DateFromSelf,
    {
      strict: true,
      decode: (value, _, ast) => {
        const date = new Date(value.includes("T") || value.includes("Z") ? value : `${value.replace(" ", "T")}Z`);
        return Number.isNaN(date.getTime())
          ? ParseResult.fail(new ParseResult.Type(ast, value, `expected ${description}`))
          : ParseResult.succeed(date);
      },
      encode: (date) => ParseResult.succeed(format(date)),
    },
  );

/** What `formatIsoOffset` writes; in the document, so that it tells these apart from the snapshots' `Z` form. */
const ISO_OFFSET_PATTERN = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\+00:00$";

export const IsoOffsetDateTime = dateFromString(
  ISO_OFFSET_PATTERN,
  "ISO 8601 date-time with offset",
  formatIsoOffset,
  "2026-11-21T16:03:18+00:00",
).annotations({
  jsonSchema: { type: "string", format: "date-time", pattern: ISO_OFFSET_PATTERN, examples: ["2026-11-21T16:03:18+00:00"] },
});

export const CreditorDateTime = dateFromString(
  "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$",
  "date-time YYYY-MM-DD HH:mm:ss (UTC)",
  formatCreditorTimestamp,
  "2026-11-21 16:03:18",
).annotations({ jsonSchema: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$", examples: ["2026-11-21 16:03:18"] } });

/** What `formatUtc` (`Date.prototype.toISOString`) writes for the years 0000 to 9999. */
const UTC_PATTERN = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$";

export const UtcDateTime = dateFromString("", "ISO 8601 UTC date-time", formatUtc, "2026-11-21T16:03:18.123Z").annotations({
  jsonSchema: { type: "string", format: "date-time", pattern: UTC_PATTERN, examples: ["2026-11-21T16:03:18.123Z"] },
});

/** Real instants between 1970 and 2100, for generated examples (property tests, fuzzing). */
const plausibleDates = (fc: typeof FastCheck) =>
  fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true });

/** A plain calendar date `YYYY-MM-DD`, kept as a string on both sides. */
export const PlainDate = Schema.String.pipe(
  Schema.filter((value) => Dates.isWritableDate(value) || "expected a date YYYY-MM-DD"),
).annotations({
  jsonSchema: { type: "string", format: "date", examples: ["2026-11-21"] },
  arbitrary: () => (fc) => plausibleDates(fc).map(Dates.utcDate),
});

/**
 * An instant filter of a list (`created_after`, `created_before`): an ISO
 * 8601 date-time with an offset, or a calendar date `YYYY-MM-DD`, which
 * stands for that day's start in UTC. Kept as a string; `instantOfFilter`
 * reads it.
 */
export const InstantFilter = Schema.String.pipe(
  Schema.filter(
    (value) =>
      Dates.isWritableDateTime(value) ||
      Dates.isWritableDate(value) ||
      "expected an ISO 8601 date-time with offset (2026-11-21T16:03:18+00:00) or a date (2026-11-21, midnight UTC)",
  ),
).annotations({
  jsonSchema: {
    type: "string",
    // Each branch names its type: a branch without one is "any value" to code generators (openapi-typescript
    // typed created_after as unknown, so a Date compiled, and openapi-fetch sent no filter at all for it).
    anyOf: [
      { type: "string", format: "date-time" },
      { type: "string", format: "date" },
    ],
    examples: ["2026-11-21T16:03:18+00:00", "2026-11-21"],
  },
  arbitrary: () => (fc) =>
    fc.oneof(plausibleDates(fc).map(formatIsoOffset), plausibleDates(fc).map(Dates.utcDate)),
});

/**
 * The instant an `InstantFilter` value names, as UTC text with microseconds
 * (`2026-11-21T14:03:18.000000Z`): a date is its day's start in UTC. A
 * fraction finer than a microsecond is rounded up, which keeps comparisons
 * with PostgreSQL's microsecond timestamps exact (`t >= b` and `t < b` hold
 * exactly when they hold against the next microsecond at or after `b`); a
 * Date would drop everything past the millisecond. Texts of this form sort
 * as their instants do.
 */
export const instantOfFilter = (value: string): string => {
  if (Dates.isWritableDate(value)) return `${value}T00:00:00.000000Z`;
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? "";
  const second = new Date(value.replace(/\.\d+/, "")).getTime();
  const micros = Math.ceil(Number(fraction.padEnd(9, "0").slice(0, 9)) / 1000);
  const at = new Date(second + (micros === 1_000_000 ? 1000 : 0));
  return `${Dates.utcDate(at)}T${Dates.utcTime(at)}.${String(micros % 1_000_000).padStart(6, "0")}Z`;
};

