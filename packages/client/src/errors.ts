/**
 * The client's error model: every failure an integrator can meet, decoded
 * into one discriminated union (`ClientError`, switch on `kind`), and the
 * `DebtCollectionError` class that carries it where a value cannot be
 * returned (async iterators, multi-step helpers, `unwrap`). See
 * docs/decisions/0400-client-error-model.md.
 */

/** The API's error envelope `{error: true, message, code, error_code?, details?}` (contract 7.1). */
export interface ApiError {
  readonly kind: "api";
  /** HTTP status of the response. */
  readonly status: number;
  readonly message: string;
  /** The envelope's `code` (equal to `status` on this API). */
  readonly code: number;
  /** Machine-readable code when the status alone is ambiguous (`snapshot_reference_conflict`, `invalid_snapshot_row`...). */
  readonly errorCode?: string;
  /** Field path -> message, on validation failures. */
  readonly details?: Readonly<Record<string, string>>;
  /** Seconds the server asked to wait before trying again (`Retry-After`, sent with a 503), when it said. */
  readonly retryAfterSeconds?: number;
}

/** An OAuth token-endpoint error `{error, error_description}` (contract 7.3). */
export interface OAuthError {
  readonly kind: "oauth";
  readonly status: number;
  /** `invalid_client`, `invalid_scope`, `invalid_grant`, `slow_down`... */
  readonly error: string;
  readonly description: string;
}

/** 429: the company exceeded an operation's rate limit and retries (if any) did not get through. */
export interface RateLimited {
  readonly kind: "rate_limited";
  /** Seconds the server asked to wait (`Retry-After`), or `null` when it did not say. */
  readonly retryAfterSeconds: number | null;
  readonly message: string;
}

/** No HTTP response at all: connection refused or reset, DNS failure, no answer in time, aborted request. */
export interface NetworkError {
  readonly kind: "network";
  readonly cause: unknown;
  /**
   * `"attempt_timeout"` when the (last) attempt got no response within the
   * client's `attemptTimeoutMs` (`cause` is then an `AttemptTimeoutError`);
   * absent for every other failure, the call's own `signal` aborting included.
   */
  readonly reason?: "attempt_timeout";
}

/** The client gave up on an attempt that had no response after `timeoutMs` (`attemptTimeoutMs`). */
export class AttemptTimeoutError extends Error {
  override readonly name = "AttemptTimeoutError";
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`no response within ${timeoutMs} ms (attemptTimeoutMs)`);
    this.timeoutMs = timeoutMs;
  }
}

/** What was thrown instead of a response, as a `NetworkError` (`reason` set for the client's own timeout). */
export const networkError = (cause: unknown): NetworkError =>
  cause instanceof AttemptTimeoutError ? { kind: "network", cause, reason: "attempt_timeout" } : { kind: "network", cause };

/** Every failure of a call, discriminated by `kind`. */
export type ClientError = ApiError | OAuthError | RateLimited | NetworkError;

/** Thrown by `unwrap`, `paginate` and the snapshot helpers; `error` holds the decoded failure. */
export class DebtCollectionError extends Error {
  override readonly name = "DebtCollectionError";
  readonly error: ClientError;

  constructor(error: ClientError) {
    super(describe(error), error.kind === "network" ? { cause: error.cause } : undefined);
    this.error = error;
  }
}

/** One line for logs and `Error.message`. */
export const describe = (error: ClientError): string => {
  switch (error.kind) {
    case "api":
      return `${error.status} ${error.message}${error.errorCode === undefined ? "" : ` (${error.errorCode})`}`;
    case "oauth":
      return `${error.status} ${error.error}: ${error.description}`;
    case "rate_limited":
      return `429 ${error.message}${error.retryAfterSeconds === null ? "" : ` (retry after ${error.retryAfterSeconds} s)`}`;
    case "network":
      return `network error: ${causeChain(error.cause)}`;
  }
};

/**
 * The messages of a thrown value and of its causes, outermost first: fetch
 * rejects with a bare `fetch failed` whose `cause` says what happened
 * (`connect ECONNREFUSED 127.0.0.1:3000`, `getaddrinfo ENOTFOUND ...`). An
 * `AggregateError` (both addresses of a host refused) is read through its
 * first error; a message already said is not repeated.
 */
const causeChain = (thrown: unknown): string => {
  const parts: Array<string> = [];
  let current = thrown;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (!(current instanceof Error)) {
      parts.push(String(current));
      break;
    }
    const code = (current as { readonly code?: unknown }).code;
    const next: unknown = current.cause ?? (current instanceof AggregateError ? current.errors[0] : undefined);
    const text = current.message !== "" ? current.message : next === undefined ? (typeof code === "string" ? code : current.name) : "";
    if (text !== "" && !parts.some((part) => part.includes(text))) parts.push(text);
    current = next;
  }
  return parts.join(": ");
};

/** `Retry-After` as seconds: delta-seconds or an HTTP date (RFC 9110 10.2.3); `null` when absent or unreadable. */
export const retryAfterSeconds = (headers: Headers, now: number = Date.now()): number | null => {
  const value = headers.get("retry-after")?.trim();
  if (value === undefined || value === "") return null;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const stringRecord = (value: unknown): Record<string, string> | undefined => {
  if (!isRecord(value)) return undefined;
  const entries = Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string");
  return Object.fromEntries(entries);
};

/**
 * Decodes a non-2xx response body (already parsed as JSON when it was JSON,
 * else its text) into the union. Bodies that are neither envelope (a proxy's
 * HTML 502, say) become an `ApiError` with the status text as message.
 */
export const decodeErrorBody = (response: Response, body: unknown): ClientError => {
  const status = response.status;
  const envelope = isRecord(body) && body["error"] === true && typeof body["message"] === "string" ? body : undefined;
  if (status === 429) {
    const oauthDescription = isRecord(body) && typeof body["error_description"] === "string" ? body["error_description"] : undefined;
    return {
      kind: "rate_limited",
      retryAfterSeconds: retryAfterSeconds(response.headers),
      message: typeof envelope?.["message"] === "string" ? envelope["message"] : (oauthDescription ?? "Rate limit exceeded"),
    };
  }
  const wait = retryAfterSeconds(response.headers);
  const retryAfter = wait === null ? {} : { retryAfterSeconds: wait };
  if (envelope !== undefined) {
    const details = stringRecord(envelope["details"]);
    return {
      kind: "api",
      status,
      message: envelope["message"] as string,
      code: typeof envelope["code"] === "number" ? envelope["code"] : status,
      ...(typeof envelope["error_code"] === "string" ? { errorCode: envelope["error_code"] } : {}),
      ...(details === undefined ? {} : { details }),
      ...retryAfter,
    };
  }
  if (isRecord(body) && typeof body["error"] === "string") {
    return {
      kind: "oauth",
      status,
      error: body["error"],
      description: typeof body["error_description"] === "string" ? body["error_description"] : "",
    };
  }
  return { kind: "api", status, message: response.statusText || `HTTP ${status}`, code: status, ...retryAfter };
};

/** Anything thrown below the client (fetch's TypeError, an abort) as a `ClientError`. */
export const fromThrown = (thrown: unknown): ClientError =>
  thrown instanceof DebtCollectionError ? thrown.error : networkError(thrown);
