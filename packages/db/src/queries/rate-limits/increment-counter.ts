/**
 * Adds one to a counter's window, creating it, and returns the new count.
 * One statement, so concurrent increments in any process never lose a count.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export const incrementCounter = async (
  db: Db,
  counter: { readonly key: string; readonly windowStart: Date; readonly expiresAt: Date },
): Promise<number> =>
  (
    await db
      .insertInto("rate_limit_counters")
      .values({ key: counter.key, window_start: counter.windowStart, count: 1, expires_at: counter.expiresAt })
      .onConflict((conflict) =>
        conflict.columns(["key", "window_start"]).doUpdateSet({ count: sql<number>`rate_limit_counters.count + 1` }),
      )
      .returning("count")
      .executeTakeFirstOrThrow()
  ).count;
