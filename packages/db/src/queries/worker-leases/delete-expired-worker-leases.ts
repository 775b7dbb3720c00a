/** Leases of pools that are gone, deleted by the dead-worker sweep (docs/decisions/0357). */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

/**
 * Deletes the expired leases whose pool locks no job (a dead pool whose jobs
 * were freed, or one that stopped without ending its lease), skipping a lease
 * another session holds, and returns how many went.
 */
export const deleteExpiredWorkerLeases = async (db: Db): Promise<number> => {
  const { numAffectedRows } = await sql`
    delete from worker_leases where pool_id in (
      select l.pool_id from worker_leases l
      where l.renewed_at + make_interval(secs => l.grace_seconds) <= now()
        and not exists (select 1 from graphile_worker.jobs j where j.locked_by = l.pool_id)
      for update of l skip locked
    )
  `.execute(db);
  return Number(numAffectedRows ?? 0);
};
