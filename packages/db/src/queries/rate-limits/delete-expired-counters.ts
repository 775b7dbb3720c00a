/** Deletes the rate-limit counters whose window ended before `now` (they belong to no company), returning how many went. */
import type { Db } from "../executor.ts";

export const deleteExpiredCounters = async (db: Db, now: Date): Promise<number> =>
  Number((await db.deleteFrom("rate_limit_counters").where("expires_at", "<", now).executeTakeFirst()).numDeletedRows);
