/** Queue locks that graphile-worker left behind, freed (docs/decisions/0357). */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

/**
 * Frees every named queue locked, for longer than `staleSeconds`, by a pool
 * that runs none of that queue's jobs, and returns them. graphile-worker
 * locks a queue and one of its jobs in one statement and frees both in one
 * statement, so such a lock is a leftover: a job run twice after its lock was
 * released (a pool taken for dead while alive) and completed
 * first by the first runner; the second runner's completion then finds the
 * job gone and leaves the queue locked by its own, live, pool, which no job
 * lock names, until graphile-worker's 4-hour reset, with a campaign's
 * snapshots waiting behind it (docs/decisions/0357).
 *
 * This is the one statement that writes a library's private table, against
 * the house rule: no public graphile-worker function frees one queue of a
 * live pool (`force_unlock_workers` frees every lock of the pool, its running
 * jobs' included). The public way out is to make the case impossible: a pool
 * that has lost its presence connection for most of the grace period stops
 * its own jobs before another pool can take it for dead.
 */
export const releaseOrphanedQueueLocks = async (
  db: Db,
  staleSeconds: number,
): Promise<Array<{ queue: string; pool: string }>> => {
  // The lock is freed only as it was read: a queue locked again meanwhile (another job taken) is left alone.
  const { rows } = await sql<{ queue: string; pool: string }>`
    update graphile_worker._private_job_queues q set locked_by = null, locked_at = null
    from (
      select o.id, o.locked_by, o.locked_at from graphile_worker._private_job_queues o
      where o.locked_by is not null and o.locked_at < now() - make_interval(secs => ${staleSeconds})
        and not exists (
          select 1 from graphile_worker._private_jobs j where j.job_queue_id = o.id and j.locked_by = o.locked_by
        )
    ) orphan
    where q.id = orphan.id and q.locked_by = orphan.locked_by and q.locked_at = orphan.locked_at
    returning q.queue_name as queue, orphan.locked_by as pool
  `.execute(db);
  return rows;
};
