/**
 * The engine's jobs (docs/decisions/0600): one `engine_sweep` job for every
 * live company, kept single by its job key (a running sweep re-adds the key
 * for its next run, which graphile-worker keeps apart from the locked one),
 * and one `advance_sandbox_clock` job per sandbox company. No job ever
 * exists per debt.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export const ENGINE_SWEEP_TASK = "engine_sweep";
export const ENGINE_SWEEP_JOB_KEY = "engine-sweep";
export const ADVANCE_SANDBOX_CLOCK_TASK = "advance_sandbox_clock";

/** The job key of a sandbox company's clock job. */
export const sandboxClockJobKey = (companyId: number): string => `sandbox-clock:${companyId}`;

/**
 * Schedules the sweep `delayMs` from now on the database's clock, the one
 * graphile-worker runs jobs by (the engine's own clock may be a test's),
 * replacing a waiting sweep's time. With `keepEarlier`, a waiting sweep due
 * sooner keeps its time (the worker's start-up uses it).
 */
export const enqueueEngineSweep = async (db: Db, delayMs: number, keepEarlier = false): Promise<void> => {
  await sql`
    select graphile_worker.add_job(
      ${ENGINE_SWEEP_TASK}, '{}'::json,
      run_at := clock_timestamp() + make_interval(secs => ${Math.max(0, delayMs) / 1000}::float8),
      job_key := ${ENGINE_SWEEP_JOB_KEY},
      job_key_mode := ${keepEarlier ? "preserve_run_at" : "replace"},
      max_attempts := 25
    )`.execute(db);
};

/** Adds the job that moves a sandbox company's clock to `to` (a waiting one for the company is replaced). */
export const enqueueAdvanceSandboxClock = async (db: Db, companyId: number, to: Date): Promise<void> => {
  await sql`
    select graphile_worker.add_job(
      ${ADVANCE_SANDBOX_CLOCK_TASK},
      json_build_object('companyId', ${companyId}::bigint, 'to', ${to.toISOString()}::text),
      job_key := ${sandboxClockJobKey(companyId)},
      max_attempts := 5
    )`.execute(db);
};
