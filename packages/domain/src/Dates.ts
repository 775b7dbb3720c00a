/**
 * Text formats of dates and times in the contract (2.1): plain dates
 * `YYYY-MM-DD` that must name a real calendar day, and ISO 8601 date-times
 * that carry an explicit offset or `Z`. Pure syntax checks, no clock.
 */
import { Schema } from "effect";

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const dateTimePattern = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

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
    atMost(match[5], 23) &&
    atMost(match[6], 59)
  );
};

/** A plain calendar date `YYYY-MM-DD`. */
export const PlainDate = Schema.String.pipe(
  Schema.filter(isCalendarDate, { message: () => "must be a real calendar date in the format YYYY-MM-DD" }),
).annotations({ identifier: "PlainDate" });

/** An ISO 8601 date-time with an offset or `Z`. */
export const IsoDateTime = Schema.String.pipe(
  Schema.filter(isIsoDateTime, { message: () => "must be an ISO 8601 date-time with an offset or Z" }),
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
