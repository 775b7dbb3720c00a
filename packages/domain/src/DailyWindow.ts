/**
 * Daily windows of local wall-clock time ("HH:MM" to "HH:MM"): a timeline's
 * sending window and the quiet hours. A window holds the minutes from its
 * start included to its end excluded; one whose end is before its start
 * crosses midnight ("21:00" to "08:00" is the night), one whose start equals
 * its end holds no minute, and "24:00" may end a window that runs to
 * midnight ("00:00" to "24:00" is the whole day).
 */
import { Schema } from "effect";

/** A daily window of local time. */
export interface Window {
  /** "HH:MM", 00:00 to 23:59. */
  readonly start: string;
  /** "HH:MM", 00:00 to 24:00; before `start` when the window crosses midnight. */
  readonly end: string;
}

/** A window in minutes of the local day (0 to 1440). */
export interface Minutes {
  readonly start: number;
  readonly end: number;
}

export const minutesPerDay = 1440;

const timeOfDayPattern = /^([01]\d|2[0-4]):([0-5]\d)$/;

/** The minute of the day of an "HH:MM" time (0 to 1440), or null when it is not one. */
export const parseTimeOfDay = (text: string): number | null => {
  const match = timeOfDayPattern.exec(text);
  if (match === null) return null;
  const minutes = Number(match[1]) * 60 + Number(match[2]);
  return minutes > minutesPerDay ? null : minutes;
};

/**
 * The window in minutes, or null when a bound is not a time of day (or the
 * start is "24:00"). The guard treats a null window as one it cannot honour.
 */
export const toMinutes = (window: Window): Minutes | null => {
  const start = parseTimeOfDay(window.start);
  const end = parseTimeOfDay(window.end);
  if (start === null || end === null || start === minutesPerDay) return null;
  return { start, end };
};

/** Tells whether a window crosses midnight. */
export const crossesMidnight = (window: Minutes): boolean => window.end < window.start;

/** Tells whether a minute of the day (0 to 1439) lies in the window. */
export const contains = (window: Minutes, minute: number): boolean =>
  window.start < window.end
    ? minute >= window.start && minute < window.end
    : window.start > window.end && (minute >= window.start || minute < window.end);

/** "HH:MM" of a minute of the day. */
export const format = (minute: number): string =>
  `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;

/** Schema of an "HH:MM" time of day; "24:00" is accepted (it ends a window at midnight). */
export const TimeOfDay = Schema.String.pipe(
  Schema.filter((text) => parseTimeOfDay(text) !== null, {
    message: () => "must be a time of day HH:MM (00:00 to 24:00)",
  }),
).annotations({ identifier: "TimeOfDay" });

/** Schema of a daily window: a start before 24:00 and an end that differs from it. */
export const Window = Schema.Struct({ start: TimeOfDay, end: TimeOfDay })
  .pipe(
    Schema.filter((window) => {
      const minutes = toMinutes(window);
      if (minutes === null) return { path: ["start"], message: "must be before 24:00" };
      return minutes.start === minutes.end ? { path: ["end"], message: "must differ from start" } : true;
    }),
  )
  .annotations({ identifier: "DailyWindow" });
