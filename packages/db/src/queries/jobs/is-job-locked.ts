/**
 * Whether a graphile-worker job is still there and locked, read from its
 * public `graphile_worker.jobs` view: false once the job is completed (gone)
 * or returned for a retry (unlocked), which is when its queue is free again.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export const isJobLocked = async (db: Db, jobId: string): Promise<boolean> => {
  const { rows } = await sql<{ held: boolean }>`
      select exists (
        select 1 from graphile_worker.jobs where id = ${jobId}::bigint and locked_at is not null
      ) as held`.execute(db);
  return rows[0]?.held !== false;
};
