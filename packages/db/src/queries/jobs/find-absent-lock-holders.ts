/**
 * The worker pools that lock a job and show no presence connection: the
 * candidates of the dead-worker sweep (apps/worker/src/stale-locks.ts,
 * docs/decisions/0357). Read-only; it decides nothing by itself, since a live
 * pool's presence connection can be down for a few seconds while it reconnects.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";

/**
 * Ids of the pools, other than `own`, that lock a job of graphile-worker's
 * public `jobs` view and have no session in `pg_stat_activity` whose
 * `application_name` is `presencePrefix` followed by the pool id.
 */
export const findAbsentLockHolders = async (
  db: Kysely<Database>,
  presencePrefix: string,
  own: ReadonlySet<string>,
): Promise<Array<string>> => {
  const { rows } = await sql<{ locked_by: string }>`
    select distinct j.locked_by from graphile_worker.jobs j
    where j.locked_by is not null and j.locked_by <> all(${[...own]}::text[])
      and not exists (
        select 1 from pg_stat_activity a where a.application_name = ${presencePrefix} || j.locked_by
      )
  `.execute(db);
  return rows.map((row) => row.locked_by);
};
