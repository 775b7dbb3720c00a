/**
 * One text form for an instant, so that an installment's `paid_at` read back
 * from PostgreSQL compares equal to the same instant in a later snapshot row,
 * whatever offset the row used (docs/decisions/0356). The form is UTC with
 * exactly six decimals (`timestamptz` precision): `2024-05-01T08:00:00.000000Z`.
 * Rows are canonicalised in JavaScript (digits past the sixth are dropped,
 * and the canonical text is what gets stored), and stored values are
 * rendered by `canonicalInstantSql`, so both sides agree exactly.
 */
import { type RawBuilder, sql } from "kysely";

const isoDateTime = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;

const pad = (value: number, width: number): string => String(value).padStart(width, "0");

/**
 * The canonical form of an ISO 8601 date-time with an offset or `Z`, or
 * `undefined` when the text is not one or the instant falls outside the
 * years 0001-9999 (which PostgreSQL's text forms cannot round-trip).
 *
 * @example canonicalInstant("2024-05-01T10:00+02:00") // "2024-05-01T08:00:00.000000Z"
 */
export const canonicalInstant = (text: string): string | undefined => {
  const match = isoDateTime.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second, fraction, sign, offsetHours, offsetMinutes] = match;
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second ?? 0), 0);
  const offsetMs =
    sign === undefined ? 0 : (sign === "-" ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  const utc = new Date(date.getTime() - offsetMs);
  const utcYear = utc.getUTCFullYear();
  if (Number.isNaN(utc.getTime()) || utcYear < 1 || utcYear > 9999) return undefined;
  const micros = (fraction ?? "").slice(0, 6).padEnd(6, "0");
  return (
    `${pad(utcYear, 4)}-${pad(utc.getUTCMonth() + 1, 2)}-${pad(utc.getUTCDate(), 2)}` +
    `T${pad(utc.getUTCHours(), 2)}:${pad(utc.getUTCMinutes(), 2)}:${pad(utc.getUTCSeconds(), 2)}.${micros}Z`
  );
};

/** SQL rendering a `timestamptz` expression in the canonical form of `canonicalInstant`. */
export const canonicalInstantSql = (expression: RawBuilder<unknown>): RawBuilder<string> =>
  sql<string>`to_char(${expression} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
