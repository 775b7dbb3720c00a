/**
 * Adds the job that applies a snapshot. Call it in the transaction that makes
 * the snapshot `pending` (one-request accepted, staged finalized): a crash can
 * then neither lose the job nor leave a job without its snapshot. The named
 * queue runs one campaign's snapshots one at a time, in acceptance order; the
 * job key keeps one job per snapshot.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";

/** The graphile-worker task that applies a snapshot (payload `{ snapshot_id }`). */
export const APPLY_SNAPSHOT_TASK = "apply_snapshot";

/** Name of the queue that serialises a campaign's snapshots. */
export const snapshotQueueName = (campaignId: number): string => `snapshots:campaign:${campaignId}`;

export const enqueueApplySnapshot = async (
  db: Kysely<Database>,
  snapshot: { readonly id: number; readonly campaignId: number },
): Promise<void> => {
  await sql`
    select graphile_worker.add_job(
      'apply_snapshot',
      json_build_object('snapshot_id', ${snapshot.id}::bigint),
      queue_name := 'snapshots:campaign:' || ${snapshot.campaignId}::bigint,
      job_key := 'apply_snapshot:' || ${snapshot.id}::bigint,
      max_attempts := 10
    )`.execute(db);
};
