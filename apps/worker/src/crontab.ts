/**
 * Recurring jobs. graphile-worker records each identifier in
 * `_private_known_crontabs`, so renaming one starts a new schedule.
 */
import { type ParsedCronItem, parseCronItems } from "graphile-worker";
import { PURGE_EXPIRED } from "./tasks/purge-expired.ts";

/** The schedule: `purge_expired` at minute 0 of every hour. */
export const cronItems: ReadonlyArray<ParsedCronItem> = parseCronItems([
  {
    task: PURGE_EXPIRED,
    match: "0 * * * *",
    identifier: "purge_expired_hourly",
    // A missed hour needs no catching up: the next run purges everything anyway.
    options: { backfillPeriod: 0, jobKey: "purge_expired_hourly", maxAttempts: 5 },
  },
]);
