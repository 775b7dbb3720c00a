/**
 * The retry policy: which failures are retried (429, 503, no response), on
 * which methods (idempotent ones only: GET, HEAD, PUT, DELETE, OPTIONS; never
 * POST or PATCH), and how long to wait (exponential backoff with full
 * jitter, never less than the server's `Retry-After`). See
 * docs/decisions/0401-client-retry-policy.md.
 */
import { DebtCollectionError } from "./errors.ts";

export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 disables retrying). */
  readonly maxRetries?: number;
  /** First backoff ceiling in milliseconds (default 250); doubles per retry. */
  readonly baseDelayMs?: number;
  /** Largest backoff ceiling in milliseconds (default 8,000). */
  readonly maxDelayMs?: number;
  /**
   * A `Retry-After` longer than this (seconds, default 60) is not waited for:
   * the call returns the 429/503 at once, so an hourly limit cannot stall a
   * caller for an hour.
   */
  readonly maxRetryAfterSeconds?: number;
}

export interface RetryPolicy {
  readonly maxRetries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterSeconds: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterSeconds: 60,
};

export const retryPolicy = (options: RetryOptions | false | undefined): RetryPolicy =>
  options === false ? { ...defaultRetryPolicy, maxRetries: 0 } : { ...defaultRetryPolicy, ...options };

const IDEMPOTENT: ReadonlySet<string> = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

/** RFC 9110 9.2.2: repeating the request has the effect of sending it once. */
export const isIdempotent = (method: string): boolean => IDEMPOTENT.has(method.toUpperCase());

/** Statuses that say "try again later" without the request having had an effect. */
export const isRetryableStatus = (status: number): boolean => status === 429 || status === 503;

/**
 * Milliseconds to wait before retry number `retry` (0-based): a uniform draw
 * in [0, min(max, base * 2^retry)] ("full jitter", so clients that failed
 * together do not retry together), raised to `Retry-After` when the server
 * gave one.
 */
export const backoffDelay = (
  policy: RetryPolicy,
  retry: number,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number => {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  const jittered = Math.floor(random() * ceiling);
  return retryAfterSeconds === null ? jittered : Math.max(jittered, retryAfterSeconds * 1000);
};

/**
 * Waits `ms`. An abort of `signal` ends the wait at once and clears its
 * timer, so an aborted call leaves nothing that keeps the process running.
 */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });

/**
 * Waits `ms` with `wait`, unless `signal` aborts first: then it rejects at
 * once with the abort as a `network` error (its `cause` the signal's
 * reason), as fetch rejects, and passes the signal on so the wait can end.
 */
export const waitUnlessAborted = (
  wait: (ms: number, signal?: AbortSignal) => Promise<void>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> => {
  if (signal === undefined) return wait(ms);
  const aborted = () => new DebtCollectionError({ kind: "network", cause: signal.reason });
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(aborted());
    signal.addEventListener("abort", onAbort, { once: true });
    wait(ms, signal)
      .finally(() => signal.removeEventListener("abort", onAbort))
      .then(resolve, reject);
  });
};
