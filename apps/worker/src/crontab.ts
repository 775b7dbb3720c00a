/**
 * Recurring jobs. graphile-worker records each identifier in
 * `_private_known_crontabs`, so renaming one starts a new schedule.
 */
import { type ParsedCronItem, parseCronItems } from "graphile-worker";
import { ENGINE_SWEEP_JOB_KEY } from "@dc/db";
import { ENGINE_SWEEP } from "./tasks/engine-sweep.ts";
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

/**
 * With the collection engine: a safety net that re-adds the sweep's job key
 * every minute, keeping the time of a sweep already waiting sooner, so a
 * chain of sweeps lost (its last run spent its attempts) restarts within a
 * minute. A sweep running meanwhile is not disturbed: its own next run
 * replaces this one.
 */
export const engineCronItems: ReadonlyArray<ParsedCronItem> = parseCronItems([
  {
    task: ENGINE_SWEEP,
    match: "* * * * *",
    identifier: "engine_sweep_safety_net",
    options: { backfillPeriod: 0, jobKey: ENGINE_SWEEP_JOB_KEY, jobKeyMode: "preserve_run_at", maxAttempts: 25 },
  },
]);
