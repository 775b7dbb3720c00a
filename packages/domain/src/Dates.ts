/**
 * Text formats of dates and times in the contract (2.1): plain dates
 * `YYYY-MM-DD` that must name a real calendar day, and ISO 8601 date-times
 * that carry an explicit offset or `Z`. Pure syntax checks, no clock.
 */
import { Schema } from "effect";

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const dateTimePattern = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Number of days of a month (1-based) in a year. */
export const daysInMonth = (year: number, month: number): number =>
  month === 2 && isLeapYear(year) ? 29 : (monthDays[month - 1] ?? 0);

/** Tells whether `text` is `YYYY-MM-DD` naming a real calendar day (`2024-02-30` is not). */
export const isCalendarDate = (text: string): boolean => {
  const match = datePattern.exec(text);
  if (match === null) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
};

const atMost = (part: string | undefined, max: number): boolean => part === undefined || Number(part) <= max;

/** Tells whether `text` is an ISO 8601 date-time with an offset or `Z`, e.g. `2024-05-01T10:00:00+02:00`. */
export const isIsoDateTime = (text: string): boolean => {
  const match = dateTimePattern.exec(text);
  return (
    match !== null &&
    isCalendarDate(match[1] ?? "") &&
    atMost(match[2], 23) &&
    atMost(match[3], 59) &&
    atMost(match[4], 59) &&
    atMost(match[6], 23) &&
    atMost(match[7], 59)
  );
};

/**
 * Tells whether `text` is a calendar date from 0001-01-01: year 0000 matches
 * the format, but PostgreSQL has no year 0 and cannot store it.
 */
export const isWritableDate = (text: string): boolean => isCalendarDate(text) && text.slice(0, 4) !== "0000";

/**
 * Tells whether `text` is an ISO 8601 date-time (`isIsoDateTime`) whose
 * instant falls in UTC years 0001 to 9999 (`inWritableYears`), the instants
 * PostgreSQL stores and writes back: `0001-01-01T00:30:00+01:00` is in year 0.
 */
export const isWritableDateTime = (text: string): boolean => {
  const match = dateTimePattern.exec(text);
  if (match === null || !isIsoDateTime(text)) return false;
  const [year, month, day] = (match[1] ?? "").split("-").map(Number);
  const local = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads years 0-99 as 1900-1999.
  local.setUTCFullYear(year ?? 0, (month ?? 1) - 1, day ?? 1);
  local.setUTCHours(Number(match[2]), Number(match[3]), Number(match[4] ?? 0));
  const offsetMinutes = (match[5] === "-" ? -1 : 1) * (Number(match[6] ?? 0) * 60 + Number(match[7] ?? 0));
  return inWritableYears(new Date(local.getTime() - offsetMinutes * 60_000));
};

/** A plain calendar date `YYYY-MM-DD`, from 0001-01-01. */
export const PlainDate = Schema.String.pipe(
  Schema.filter(isCalendarDate, { message: () => "must be a real calendar date in the format YYYY-MM-DD" }),
  Schema.filter(isWritableDate, { message: () => "must be 0001-01-01 or later" }),
).annotations({ identifier: "PlainDate" });

/** An ISO 8601 date-time with an offset or `Z`, in UTC years 0001 to 9999. */
export const IsoDateTime = Schema.String.pipe(
  Schema.filter(isIsoDateTime, { message: () => "must be an ISO 8601 date-time with an offset or Z" }),
  Schema.filter(isWritableDateTime, { message: () => "must be an instant between the years 0001 and 9999" }),
).annotations({ identifier: "IsoDateTime" });

const pad = (value: number, width = 2): string => String(value).padStart(width, "0");

/**
 * Years an instant or date of the platform may fall in: four digits, as ISO
 * 8601 writes them without extension, and from year 1 (PostgreSQL has no
 * year 0).
 */
export const inWritableYears = (date: Date): boolean => {
  const year = date.getUTCFullYear();
  return year >= 1 && year <= 9999;
};

/** `YYYY-MM-DD` of an instant in UTC, the year always in four digits (`0999`, never `999`). */
export const utcDate = (date: Date): string =>
  `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;

/** `HH:mm:ss` of an instant in UTC. */
export const utcTime = (date: Date): string =>
  `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;

/**
 * `2026-11-21T16:03:18+00:00`: the wire form of followup, debt and company
 * timestamps (contract 2.1), in responses and webhook payloads alike.
 */
export const formatIsoOffset = (date: Date): string => `${utcDate(date)}T${utcTime(date)}+00:00`;
