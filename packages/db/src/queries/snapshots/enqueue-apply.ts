/**
 * Adds the job that applies a snapshot. Call it in the transaction that makes
 * the snapshot `pending` (one-request accepted, staged finalized): a crash can
 * then neither lose the job nor leave a job without its snapshot. The named
 * queue runs one campaign's snapshots one at a time, in acceptance order; the
 * job key keeps one job per snapshot.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";

/** The graphile-worker task that applies a snapshot (payload `{ snapshot_id, company_id }`). */
export const APPLY_SNAPSHOT_TASK = "apply_snapshot";

/** Name of the queue that serialises a campaign's snapshots. */
export const snapshotQueueName = (campaignId: number): string => `snapshots:campaign:${campaignId}`;

/**
 * Serialises the acceptance of a campaign's snapshots until the end of the
 * transaction (docs/decisions/0353): call it before the snapshot's
 * `accepted_seq` is drawn (a one-request insert, a staged finalize), so
 * acceptance order, commit order and queue order are the same. Otherwise two
 * submits could draw their sequence numbers in one order and commit in the
 * other; the later snapshot's job would run first, find an earlier snapshot
 * not applied, and wait for graphile-worker's growing retry delays. Submits
 * of different campaigns do not wait for each other, and the worker never
 * takes this lock.
 */
export const lockSnapshotAcceptance = async (db: Kysely<Database>, campaignId: number): Promise<void> => {
  await sql`select pg_advisory_xact_lock(hashtextextended('snapshot-acceptance:' || ${campaignId}::bigint, 0))`.execute(
    db,
  );
};

/**
 * graphile-worker runs lower numbers first. A snapshot's job goes before
 * webhook deliveries (priority 0): both share a worker's slots, and a backlog
 * of deliveries to a slow endpoint must not hold a campaign's snapshots
 * back, while a delivery has its own schedule of retries.
 */
export const SNAPSHOT_JOB_PRIORITY = -10;

/**
 * `run_at` is the clock at this statement, after `lockSnapshotAcceptance`,
 * not `now()`: graphile-worker takes a queue's jobs by `run_at`, and
 * `now()` is when the transaction began, which can come before an earlier
 * acceptance's commit, so a later snapshot could be picked first and wait for
 * the earlier one through retry delays. After the lock, the clock follows
 * acceptance order.
 */
export const enqueueApplySnapshot = async (
  db: Kysely<Database>,
  snapshot: { readonly id: number; readonly companyId: number; readonly campaignId: number },
): Promise<void> => {
  await sql`
    select graphile_worker.add_job(
      'apply_snapshot',
      json_build_object('snapshot_id', ${snapshot.id}::bigint, 'company_id', ${snapshot.companyId}::bigint),
      queue_name := ${snapshotQueueName(snapshot.campaignId)}::text,
      job_key := 'apply_snapshot:' || ${snapshot.id}::bigint,
      max_attempts := 10,
      run_at := clock_timestamp(),
      priority := ${SNAPSHOT_JOB_PRIORITY}
    )`.execute(db);
};
