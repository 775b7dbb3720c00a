/**
 * Snapshots whose `apply_snapshot` job will never run again while they are
 * still open (docs/decisions/0354): the job has used every attempt and is
 * not running, so graphile-worker leaves it alone (a permanently failed job)
 * and the snapshot would stay `pending` or `processing` for good. The job's
 * last attempt normally records the snapshot's failure itself; these are the
 * snapshots whose last attempt could not (the recording failed as well, or
 * the worker died during it).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";

/** An open snapshot and its spent job. */
export interface SpentSnapshotJob {
  readonly companyId: number;
  readonly snapshotId: number;
  /** graphile-worker's job id (a bigint, as text). */
  readonly jobId: string;
}

/**
 * Up to `limit` open snapshots whose apply job is spent, oldest job first.
 * Reads graphile-worker's jobs (few: only those waiting or failed), then
 * each snapshot by its company and id, the company taken from the job's
 * payload (graphile-worker's `jobs` view does not show it, so the table
 * under it is read).
 */
export const findSpentSnapshotJobs = async (db: Kysely<Database>, limit = 100): Promise<Array<SpentSnapshotJob>> => {
  const { rows } = await sql<{ company_id: number; snapshot_id: number; job_id: string }>`
    with spent as (
      select j.id, substring(j.key from '^apply_snapshot:([0-9]{1,18})$')::int8 as snapshot_id,
        (j.payload ->> 'company_id')::int8 as company_id
      from graphile_worker._private_jobs j
      join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = 'apply_snapshot' and j.attempts >= j.max_attempts and j.locked_at is null
    )
    select s.company_id, s.id as snapshot_id, spent.id::text as job_id
    from spent
    join snapshots s on s.company_id = spent.company_id and s.id = spent.snapshot_id
    where s.status in ('pending', 'processing')
    order by spent.id
    limit ${limit}
  `.execute(db);
  return rows.map((row) => ({ companyId: row.company_id, snapshotId: row.snapshot_id, jobId: row.job_id }));
};

/**
 * Deletes job `jobId` if it is still spent and not running (graphile-worker's
 * `complete_jobs`), so no permanently failed job is left behind for a
 * snapshot whose failure is recorded. Call in the transaction that records
 * it, first: false (the job was retried or removed meanwhile) means the
 * snapshot is not to be touched.
 */
export const completeSpentJob = async (trx: Kysely<Database>, jobId: string): Promise<boolean> => {
  const { rows } = await sql<{ id: string }>`
    select c.id::text from graphile_worker.complete_jobs(array(
      select j.id from graphile_worker.jobs j
      where j.id = ${jobId}::int8 and j.attempts >= j.max_attempts and j.locked_at is null
    )) as c
  `.execute(trx);
  return rows.length === 1;
};
