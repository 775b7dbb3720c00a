/**
 * The `fetch` the typed client runs on: it adds the bearer token, re-fetches
 * the token once when the API answers 401, gives the creating POSTs an
 * `Idempotency-Key` (idempotency-key.ts), and retries what the retry policy
 * allows (retry.ts). It sees every request of the client, typed or raw.
 */
import { DebtCollectionError, fromThrown, networkError, retryAfterSeconds, type ClientError } from "./errors.ts";
import { carriesIdempotencyKey, withIdempotencyKey } from "./idempotency-key.ts";
import { backoffDelay, isIdempotent, isRetryableStatus, waitUnlessAborted, type RetryPolicy } from "./retry.ts";
import type { AccessToken, TokenManager } from "./token-manager.ts";

/** Why and how long the client waits before sending a request again. */
export interface RetryEvent {
  readonly method: string;
  readonly url: string;
  /** 1 for the first retry. */
  readonly retry: number;
  readonly delayMs: number;
  /** The status that caused it, or `undefined` when no response came. */
  readonly status: number | undefined;
}

export interface TransportOptions {
  readonly tokens: TokenManager;
  readonly fetch: (request: Request) => Promise<Response>;
  readonly retry: RetryPolicy;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random: () => number;
  readonly onRetry?: (event: RetryEvent) => void;
}

type Attempt =
  | { readonly response: Response; readonly retryable: boolean }
  | { readonly thrown: DebtCollectionError; readonly retryable: boolean; readonly retryAfter: number | null };

/**
 * Failures while getting a token happen before the API request leaves, so
 * they may be retried whatever the method; a refused grant (`oauth`) may not.
 */
const retryableBeforeSend = (error: ClientError): boolean =>
  error.kind === "network" || (error.kind === "api" && error.status === 503);

export const createTransport = (options: TransportOptions) => {
  const { tokens, retry: policy } = options;

  /** Sending it again has the effect of sending it once (RFC 9110 9.2.2, or the api's Idempotency-Key). */
  const repeatable = (request: Request): boolean => isIdempotent(request.method) || carriesIdempotencyKey(request);

  const token = async (): Promise<AccessToken | Attempt> => {
    try {
      return await tokens.get();
    } catch (thrown) {
      const error = fromThrown(thrown);
      const retryAfter = error.kind === "api" ? (error.retryAfterSeconds ?? null) : null;
      return { thrown: new DebtCollectionError(error), retryable: retryableBeforeSend(error), retryAfter };
    }
  };

  const send = async (request: Request, accessToken: AccessToken): Promise<Response | Attempt> => {
    // A Request body can be read once: every send works on its own copy.
    const copy = request.clone();
    copy.headers.set("authorization", `Bearer ${accessToken.value}`);
    try {
      return await options.fetch(copy);
    } catch (cause) {
      // No response: refused, reset or past `attemptTimeoutMs`, retried alike; the caller's abort ends the loop below.
      const thrown = new DebtCollectionError(networkError(cause));
      return { thrown, retryable: repeatable(request), retryAfter: null };
    }
  };

  /** The caller's abort as the failure of the call, as fetch itself rejects with `signal.reason`. */
  const aborted = (signal: AbortSignal) => new DebtCollectionError({ kind: "network", cause: signal.reason });

  const attempt = async (request: Request, allowRefresh: boolean): Promise<Attempt & { refreshed: boolean }> => {
    let accessToken = await token();
    if (!("value" in accessToken)) return { ...accessToken, refreshed: false };
    let sent = await send(request, accessToken);
    let refreshed = false;
    // A 401 means the request was refused before anything happened, so sending it again is safe for any method.
    if (sent instanceof Response && sent.status === 401 && allowRefresh) {
      await sent.body?.cancel();
      tokens.invalidate(accessToken);
      refreshed = true;
      accessToken = await token();
      if (!("value" in accessToken)) return { ...accessToken, refreshed };
      sent = await send(request, accessToken);
    }
    if (!(sent instanceof Response)) return { ...sent, refreshed };
    return { response: sent, retryable: repeatable(request) && isRetryableStatus(sent.status), refreshed };
  };

  return async (sent: Request): Promise<Response> => {
    // One key per call, the same on each of its retries.
    const request = withIdempotencyKey(sent);
    // An aborted call is over (a timeout from `AbortSignal.timeout` included): nothing is sent or retried after it.
    const { signal } = request;
    let allowRefresh = true;
    for (let retry = 0; ; retry++) {
      if (signal.aborted) throw aborted(signal);
      const outcome = await attempt(request, allowRefresh);
      if (outcome.refreshed) allowRefresh = false;
      const waitAtLeast = "response" in outcome ? retryAfterSeconds(outcome.response.headers) : outcome.retryAfter;
      const give =
        !outcome.retryable ||
        signal.aborted ||
        retry >= policy.maxRetries ||
        (waitAtLeast !== null && waitAtLeast > policy.maxRetryAfterSeconds);
      if (give) {
        if ("response" in outcome) return outcome.response;
        throw outcome.thrown;
      }
      const delayMs = backoffDelay(policy, retry, waitAtLeast, options.random);
      if ("response" in outcome) await outcome.response.body?.cancel();
      options.onRetry?.({
        method: request.method,
        url: request.url,
        retry: retry + 1,
        delayMs,
        status: "response" in outcome ? outcome.response.status : undefined,
      });
      // The wait before a retry, cut short by the caller's abort.
      await waitUnlessAborted(options.sleep, delayMs, signal);
    }
  };
};
