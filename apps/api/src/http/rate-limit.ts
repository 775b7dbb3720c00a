/**
 * Per-company rate limiting with fixed windows, shared by every api process:
 * the counter lives in PostgreSQL, so N processes see one budget. Admission
 * (http/fast-paths/admission.ts) counts requests; this module describes a counted
 * request and gives one back.
 */
import { type Db, refundRateLimit as refundCounter } from "@dc/db";

/** The fixed window of `windowSeconds` (aligned on the epoch, so on the hour) that holds `now`. */
export const fixedWindow = (now: Date, windowSeconds: number) => {
  const length = windowSeconds * 1000;
  const start = Math.floor(now.getTime() / length) * length;
  return {
    start: new Date(start),
    end: new Date(start + length),
    /** Whole seconds until the window ends, at least 1 (`Retry-After`, `RateLimit-Reset`). */
    secondsLeft: Math.max(1, Math.ceil((start + length - now.getTime()) / 1000)),
  };
};

export interface RateLimitState {
  readonly key: string;
  readonly windowStart: Date;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window resets. */
  readonly resetSeconds: number;
}

/** Gives back one request (an idempotent replay of an accepted decision is not counted). */
export const refundRateLimit = (db: Db, state: RateLimitState): Promise<void> =>
  refundCounter(db, { key: state.key, windowStart: state.windowStart });

/** The IETF RateLimit header fields of a limited response. */
export const rateLimitHeaders = (state: RateLimitState): Record<string, string> => ({
  "RateLimit-Limit": String(state.limit),
  "RateLimit-Remaining": String(Math.max(0, state.remaining)),
  "RateLimit-Reset": String(state.resetSeconds),
});
