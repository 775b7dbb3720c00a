/** A worker pool's lease, taken or renewed (docs/decisions/0357). */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

/**
 * Sets the lease of `poolId` to the database's `now()` with the pool's grace,
 * creating it on the first renewal. Another worker may take the pool for dead
 * once `now()` passes `renewed_at` by `graceSeconds`.
 */
export const renewWorkerLease = async (db: Db, poolId: string, graceSeconds: number): Promise<void> => {
  await sql`
    insert into worker_leases (pool_id, renewed_at, grace_seconds) values (${poolId}, now(), ${graceSeconds})
    on conflict (pool_id) do update set renewed_at = excluded.renewed_at, grace_seconds = excluded.grace_seconds
  `.execute(db);
};
