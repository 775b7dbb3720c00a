/**
 * When a failed delivery is tried again (docs/decisions/0455): after the
 * first attempt fails, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 14 h, 20 h
 * and 24 h, each with +/-10 % jitter: 11 attempts over about three and a
 * half days, then the delivery is `failed`. A `Retry-After` (seconds or an
 * HTTP date) on a failed response is honoured as a minimum, capped at 24 h.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The delay before retry n+1, by the number n of failed attempts so far (0-based). */
const RETRY_DELAYS_MS: ReadonlyArray<number> = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];

const MAX_RETRY_AFTER_MS = 24 * HOUR;
const JITTER = 0.1;

/**
 * Milliseconds until the next attempt after `failures` failed attempts, or
 * undefined when the schedule is exhausted. `random` in [0, 1): 0.5 means no
 * jitter.
 */
export const retryDelayMs = (failures: number, random: () => number, retryAfterMs?: number): number | undefined => {
  const base = RETRY_DELAYS_MS[failures];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  return retryAfterMs === undefined ? jittered : Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
};

/** A `Retry-After` header as milliseconds from `now` (RFC 9110 10.2.3: delay-seconds or an HTTP date), if valid. */
export const parseRetryAfter = (value: string | undefined, now: Date): number | undefined => {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * SECOND;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date) || !/[A-Za-z]/.test(trimmed)) return undefined;
  return Math.max(0, date - now.getTime());
};
