/**
 * Drops the trigger that earlier releases installed on graphile-worker's
 * private `_private_job_queues` table, and its function. The worker now
 * starts the next job of a named queue from graphile-worker's public
 * `job:complete` event and `WorkerPool.nudge` (apps/worker/src/queue-handoff.ts);
 * this project writes to and triggers on none of a library's private tables.
 * On a database whose graphile-worker schema does not exist yet (a new one:
 * our migrations run first) there is nothing to drop.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    do $$
    begin
      if to_regclass('graphile_worker._private_job_queues') is not null then
        drop trigger if exists dc_wake_workers_on_queue_unlock on graphile_worker._private_job_queues;
      end if;
    end $$`.execute(db);
  await sql`drop function if exists dc_wake_workers_on_queue_unlock()`.execute(db);
};

/** Nothing to put back: no code of this release installs or relies on the trigger. */
export const down = async (): Promise<void> => {};
