/** Releases every job and queue lock of worker pools known to be dead, through graphile-worker's public function. */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";

/**
 * Unlocks every job and queue locked by one of `pools`
 * (`graphile_worker.force_unlock_workers`). Only for pools whose process is
 * gone: a live pool's job would run a second time.
 */
export const forceUnlockWorkers = async (db: Kysely<Database>, pools: ReadonlyArray<string>): Promise<void> => {
  await sql`select graphile_worker.force_unlock_workers(${[...pools]}::text[])`.execute(db);
};
