/**
 * The per-attempt timeout (`attemptTimeoutMs`): every request the client
 * sends, token requests included, is aborted when its response's status and
 * headers have not arrived within the limit. The failure is a `network`
 * error with `reason: "attempt_timeout"`, retried as a dropped connection is
 * (docs/decisions/0401). The caller's own `signal` still ends the call; its
 * abort is never taken for a timeout.
 */
import { AttemptTimeoutError } from "./errors.ts";

/** 60 s: longer than any answer the api holds back on purpose (`Prefer: wait` is capped at 30 s). */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 60_000;

const MAX_TIMER_MS = 2_147_483_647;

/**
 * `fetch`, each call aborted after `timeoutMs` without a response (`false`:
 * never; anything but a positive number of milliseconds a timer can hold
 * throws a `RangeError`). The timer is cleared as soon as the response or a failure comes.
 */
export const withAttemptTimeout = (
  fetch: (request: Request) => Promise<Response>,
  timeoutMs: number | false,
): ((request: Request) => Promise<Response>) => {
  if (timeoutMs === false) return fetch;
  // setTimeout fires at once past 2^31 - 1 ms (and for Infinity or NaN): every attempt would time out.
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMER_MS) {
    throw new RangeError(`attemptTimeoutMs must be a number of milliseconds in (0, ${MAX_TIMER_MS}], or false`);
  }
  return async (request) => {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new AttemptTimeoutError(timeoutMs)), timeoutMs);
    try {
      return await fetch(new Request(request, { signal: AbortSignal.any([request.signal, timeout.signal]) }));
    } catch (thrown) {
      // The caller's abort wins when both happened: it ends the call, a timeout would be retried.
      if (timeout.signal.aborted && !request.signal.aborted) throw timeout.signal.reason;
      throw thrown;
    } finally {
      clearTimeout(timer);
    }
  };
};
