/** The leases of a worker's own pools, ended when it stops (docs/decisions/0357). */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

/** Deletes the leases of `poolIds`: for pools that have stopped and lock no job. */
export const endWorkerLeases = async (db: Db, poolIds: ReadonlyArray<string>): Promise<void> => {
  if (poolIds.length === 0) return;
  await sql`delete from worker_leases where pool_id = any(${[...poolIds]}::text[])`.execute(db);
};
