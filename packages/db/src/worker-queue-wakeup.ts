/**
 * Wakes graphile-worker when a named queue is unlocked (docs/decisions/0353).
 *
 * graphile-worker runs one job of a named queue at a time: the queue row is
 * locked while its job runs. When the job ends, the worker records the
 * completion without awaiting it and at once looks for its next job; that
 * look usually runs before the queue's unlock commits, finds the queue still
 * locked, and the worker sleeps for `pollInterval` (2 s). Nothing announces
 * the unlock (only `add_job` notifies `jobs:insert`), so the next snapshot of
 * a campaign started about 2 s after the one before it ended.
 *
 * This trigger sends graphile-worker's own `jobs:insert` notification when
 * a queue row goes from locked to unlocked (a completion, a failure, jobs
 * returned at shutdown, stale locks released). A notification is delivered
 * when its transaction commits, so the worker it wakes sees the queue free.
 * It only makes a worker look sooner; which job it takes, and the one-job-
 * at-a-time rule of the queue, are graphile-worker's as before. Cost: each
 * worker process with an idle worker runs one job fetch per unlock.
 *
 * Run after graphile-worker's migrations, on every `migrateAll`: idempotent,
 * and it puts the trigger back if a graphile-worker migration ever recreates
 * the table. To change the trigger's definition, give it a new name (an
 * existing trigger is left as it is, to take no table lock on every start).
 */
import { type Kysely, sql } from "kysely";

/** Installs the trigger (and replaces its function) on `graphile_worker._private_job_queues`. */
export const installQueueWakeup = async <DB>(db: Kysely<DB>): Promise<void> => {
  await db.transaction().execute(async (trx) => {
    // Concurrent starts (the api and the worker in development) must not race on the DDL.
    await sql`select pg_advisory_xact_lock(hashtextextended('dc:queue-wakeup', 0))`.execute(trx);
    // The queue id in the payload keeps the notifications of several queues
    // unlocked in one transaction distinct (PostgreSQL folds identical ones).
    await sql`
      create or replace function dc_wake_workers_on_queue_unlock() returns trigger language plpgsql as $$
      begin
        perform pg_notify('jobs:insert', json_build_object('count', 1, 'queue', new.id)::text);
        return null;
      end $$`.execute(trx);
    await sql`
      do $$
      begin
        if not exists (
          select 1 from pg_trigger
          where tgrelid = 'graphile_worker._private_job_queues'::regclass
            and tgname = 'dc_wake_workers_on_queue_unlock'
        ) then
          create trigger dc_wake_workers_on_queue_unlock
            after update of locked_at on graphile_worker._private_job_queues
            for each row when (old.locked_at is not null and new.locked_at is null)
            execute function dc_wake_workers_on_queue_unlock();
        end if;
      end $$`.execute(trx);
  });
};
