/** The count of a counter's window, or undefined when nothing was counted in it. */
import type { Db } from "../executor.ts";

export const findCounter = async (
  db: Db,
  counter: { readonly key: string; readonly windowStart: Date },
): Promise<number | undefined> =>
  (
    await db
      .selectFrom("rate_limit_counters")
      .select("count")
      .where("key", "=", counter.key)
      .where("window_start", "=", counter.windowStart)
      .executeTakeFirst()
  )?.count;
