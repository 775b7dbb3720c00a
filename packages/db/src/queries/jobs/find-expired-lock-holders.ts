/**
 * The worker pools that lock a job and whose lease has expired: the pools
 * the dead-worker sweep frees (apps/worker/src/stale-locks.ts,
 * docs/decisions/0357). Read-only.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";

/**
 * Ids of the pools, other than `own`, that lock a job of graphile-worker's
 * public `jobs` view and have not renewed their lease (`worker_leases`)
 * within their own grace. A pool with no lease yet (it has just started, or
 * died before its first renewal) counts from its oldest job lock, with
 * `graceSeconds`. Both sides are the database's clock.
 */
export const findExpiredLockHolders = async (
  db: Kysely<Database>,
  options: { readonly graceSeconds: number; readonly own: ReadonlySet<string> },
): Promise<Array<string>> => {
  const { rows } = await sql<{ pool: string }>`
    select j.locked_by as pool from graphile_worker.jobs j
    left join worker_leases l on l.pool_id = j.locked_by
    where j.locked_by is not null and j.locked_by <> all(${[...options.own]}::text[])
    group by j.locked_by, l.renewed_at, l.grace_seconds
    having coalesce(
      l.renewed_at + make_interval(secs => l.grace_seconds),
      min(j.locked_at) + make_interval(secs => ${options.graceSeconds})
    ) <= now()
    order by j.locked_by
  `.execute(db);
  return rows.map((row) => row.pool);
};
