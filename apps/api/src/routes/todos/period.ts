/**
 * The windows of `GET /todos/stats?period=` (docs/decisions/0156), in UTC:
 * `today` from midnight, `last_N_days` rolling N×24 hours back from now,
 * `since_last_month` from the first day of the previous calendar month,
 * `all_time` unbounded (null).
 */
import type { TodoPeriod } from "@dc/contract";

const DAY_MS = 86_400_000;

/** Start of `period` at `now`, or null when the period has no start. */
export const periodStart = (period: TodoPeriod, now: Date): Date | null => {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  switch (period) {
    case "today":
      return new Date(Date.UTC(year, month, now.getUTCDate()));
    case "last_7_days":
      return new Date(now.getTime() - 7 * DAY_MS);
    case "last_30_days":
      return new Date(now.getTime() - 30 * DAY_MS);
    case "last_90_days":
      return new Date(now.getTime() - 90 * DAY_MS);
    case "since_last_month":
      // Date.UTC rolls month -1 back to December of the previous year.
      return new Date(Date.UTC(year, month - 1, 1));
    case "all_time":
      return null;
  }
};

/** The UTC calendar day of `now`, `YYYY-MM-DD`. */
export const utcDay = (now: Date): string => now.toISOString().slice(0, 10);
