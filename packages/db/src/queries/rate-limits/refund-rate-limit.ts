/** Gives back one request of a counter's window (never below zero). */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export const refundRateLimit = async (
  db: Db,
  counter: { readonly key: string; readonly windowStart: Date },
): Promise<void> => {
  await db
    .updateTable("rate_limit_counters")
    .set({ count: sql<number>`count - 1` })
    .where("key", "=", counter.key)
    .where("window_start", "=", counter.windowStart)
    .where("count", ">", 0)
    .execute();
};
