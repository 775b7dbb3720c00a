/**
 * Queues the advance of a sandbox company's clock to `to`: the worker's
 * `advance_sandbox_clock` task (docs/decisions/0600, 0621) runs every action
 * due up to `to` on the company's clock, then sets the clock to `to`.
 *
 * One job per company at a time: the job key is the company's, so a second
 * advance queued before the first started replaces its target (graphile-worker's
 * `replace` mode), and one queued while the first runs waits behind it in the
 * company's own queue. The task never moves a clock backwards, so the later
 * of two concurrent targets wins.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

/** The job key (and queue name) of a company's clock advances. */
export const sandboxClockJobKey = (companyId: number): string => `sandbox-clock:${companyId}`;

export const enqueueSandboxClockAdvance = async (db: Db, companyId: number, to: Date): Promise<void> => {
  const key = sandboxClockJobKey(companyId);
  await sql`
    select graphile_worker.add_job(
      'advance_sandbox_clock',
      json_build_object('companyId', ${companyId}::bigint, 'to', ${to.toISOString()}::text),
      queue_name := ${key}::text,
      job_key := ${key}::text,
      max_attempts := 5
    )`.execute(db);
};
