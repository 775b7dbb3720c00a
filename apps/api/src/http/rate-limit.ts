/**
 * Per-company rate limiting with fixed windows, shared by every api process:
 * the counter lives in PostgreSQL and one upsert both counts the request and
 * returns the count, so N processes see one budget.
 */
import type { RateLimit } from "@dc/contract";
import type { Database } from "@dc/db";
import { type Kysely, sql } from "kysely";
import { RateLimited } from "./api-error.ts";

export interface RateLimitState {
  readonly key: string;
  readonly windowStart: Date;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window resets. */
  readonly resetSeconds: number;
}

/** Counts one request against `key`; throws RateLimited when the window's budget is spent. */
export const consumeRateLimit = async (
  db: Kysely<Database>,
  now: Date,
  key: string,
  limit: RateLimit,
): Promise<RateLimitState> => {
  const windowMs = limit.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  const windowEnd = new Date(windowStart.getTime() + windowMs);
  const { count } = await db
    .insertInto("rate_limit_counters")
    .values({ key, window_start: windowStart, count: 1, expires_at: windowEnd })
    .onConflict((conflict) =>
      conflict.columns(["key", "window_start"]).doUpdateSet({ count: sql<number>`rate_limit_counters.count + 1` }),
    )
    .returning("count")
    .executeTakeFirstOrThrow();
  const resetSeconds = Math.max(1, Math.ceil((windowEnd.getTime() - now.getTime()) / 1000));
  if (count > limit.requests) {
    throw new RateLimited({ limit: limit.requests, retryAfterSeconds: resetSeconds, resetSeconds });
  }
  return { key, windowStart, limit: limit.requests, remaining: limit.requests - count, resetSeconds };
};

/** Gives back one request (an idempotent replay of an accepted decision is not counted). */
export const refundRateLimit = async (db: Kysely<Database>, state: RateLimitState): Promise<void> => {
  await db
    .updateTable("rate_limit_counters")
    .set({ count: sql<number>`count - 1` })
    .where("key", "=", state.key)
    .where("window_start", "=", state.windowStart)
    .where("count", ">", 0)
    .execute();
};

/** The IETF RateLimit header fields of a limited response. */
export const rateLimitHeaders = (state: RateLimitState): Record<string, string> => ({
  "RateLimit-Limit": String(state.limit),
  "RateLimit-Remaining": String(Math.max(0, state.remaining)),
  "RateLimit-Reset": String(state.resetSeconds),
});
