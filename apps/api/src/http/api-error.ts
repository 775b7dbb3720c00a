/**
 * Every failure the api can answer with, as tagged values, and the one table
 * that renders each to its HTTP status, headers and body. No handler builds
 * an error body by hand; a tag without a row in `render` does not compile.
 */
import { messages, type OAuthError, payloadTooLargeMessage } from "@dc/contract";
import { isDataException, isTransientFailure } from "@dc/db";
import { Data } from "effect";

export class ValidationFailed extends Data.TaggedError("ValidationFailed")<{
  /** Field path (dotted) -> message. */
  readonly details: Readonly<Record<string, string>>;
  /** 400 by default; 422 for well-formed content that breaks a rule (snapshot rows, docs/decisions/0300). */
  readonly status?: 400 | 422;
  /** A machine-readable code where the status alone is ambiguous (`invalid_snapshot_row`, `too_many_rows`...). */
  readonly errorCode?: string;
}> {}

/** 401. `invalidToken`: a bearer token was presented and refused (RFC 6750 3.1), rather than none sent. */
export class Unauthorized extends Data.TaggedError("Unauthorized")<{ readonly invalidToken: boolean }> {}

export class MissingScope extends Data.TaggedError("MissingScope")<{ readonly scope: string }> {}

/** 404 with the resource's contract message ("Debt not found", ...), and a code where one 404 must be told from another. */
export class NotFound extends Data.TaggedError("NotFound")<{ readonly message: string; readonly errorCode?: string }> {}

/** 403 for a resource that exists but may not be acted on (contract: "Access denied to this debt"). */
export class AccessDenied extends Data.TaggedError("AccessDenied")<{ readonly message: string }> {}

/** 410 for a link that was valid and has expired (pre-signed media URLs). */
export class Gone extends Data.TaggedError("Gone")<{ readonly message: string }> {}

/** 409 with a machine-readable code (snapshot conflicts). */
export class Conflict extends Data.TaggedError("Conflict")<{ readonly errorCode: string; readonly message: string }> {}

/** 422: an `Idempotency-Key` recorded with another request (docs/decisions/0024). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- Effect's idiom for a tagged error without fields
export class IdempotencyKeyReused extends Data.TaggedError("IdempotencyKeyReused")<{}> {}

export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<{ readonly limitBytes: number }> {}

export class UnsupportedMediaType extends Data.TaggedError("UnsupportedMediaType")<{ readonly expected: string }> {}

/** A JSON body sent with a content coding other than `identity` (gzip...): refused unread. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- Effect's idiom for a tagged error without fields
export class UnsupportedContentEncoding extends Data.TaggedError("UnsupportedContentEncoding")<{}> {}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- Effect's idiom for a tagged error without fields
export class RouteNotFound extends Data.TaggedError("RouteNotFound")<{}> {}

export class MethodNotAllowed extends Data.TaggedError("MethodNotAllowed")<{ readonly allow: ReadonlyArray<string> }> {}

export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly limit: number;
  readonly retryAfterSeconds: number;
  readonly resetSeconds: number;
}> {}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- Effect's idiom for a tagged error without fields
export class TooManyConcurrentRequests extends Data.TaggedError("TooManyConcurrentRequests")<{}> {}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- Effect's idiom for a tagged error without fields
export class ServiceUnavailable extends Data.TaggedError("ServiceUnavailable")<{}> {}

/**
 * 503 for work the request waits for that has not finished in time and
 * carries on (a sandbox clock advance): repeating the request waits again.
 */
export class StillRunning extends Data.TaggedError("StillRunning")<{
  readonly message: string;
  readonly errorCode: string;
  readonly retryAfterSeconds: number;
}> {}

/** An OAuth token-endpoint error, rendered as `{error, error_description}` (contract 7.3). */
export class OAuthFailure extends Data.TaggedError("OAuthFailure")<{
  readonly error: OAuthError["error"];
  readonly description: string;
  readonly status: number;
  readonly retryAfterSeconds?: number;
  /** The methods the path accepts, for a 405. */
  readonly allow?: ReadonlyArray<string>;
}> {}

export type ApiError =
  | ValidationFailed
  | Unauthorized
  | MissingScope
  | NotFound
  | AccessDenied
  | Gone
  | Conflict
  | IdempotencyKeyReused
  | PayloadTooLarge
  | UnsupportedMediaType
  | UnsupportedContentEncoding
  | RouteNotFound
  | MethodNotAllowed
  | RateLimited
  | TooManyConcurrentRequests
  | ServiceUnavailable
  | StillRunning
  | OAuthFailure;

export interface RenderedError {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The error envelope of contract 7.1; also written by parser-refusals.ts, for requests Koa never sees. */
export const envelope = (status: number, message: string, extra: Record<string, unknown> = {}) => ({
  error: true as const,
  message,
  code: status,
  ...extra,
});

/** The `Retry-After` of a 503: the database unavailable is usually back within seconds. */
const SERVICE_UNAVAILABLE_RETRY_SECONDS = 5;

type Renderers = { readonly [Tag in ApiError["_tag"]]: (error: Extract<ApiError, { _tag: Tag }>) => RenderedError };

const renderers: Renderers = {
  ValidationFailed: ({ details, status = 400, errorCode }) => ({
    status,
    body: envelope(status, messages.validationFailed, {
      ...(errorCode === undefined ? {} : { error_code: errorCode }),
      details,
      errors: Object.entries(details).map(([property, message]) => ({ property, message })),
    }),
  }),
  // RFC 6750 3: the error attribute when a token was presented and refused, none when the request had no token.
  Unauthorized: ({ invalidToken }) => ({
    status: 401,
    body: envelope(401, messages.unauthorized),
    headers: { "WWW-Authenticate": `Bearer realm="external-api"${invalidToken ? ', error="invalid_token"' : ""}` },
  }),
  MissingScope: ({ scope }) => ({
    status: 403,
    body: envelope(403, messages.missingScope(scope)),
    headers: { "WWW-Authenticate": `Bearer realm="external-api", error="insufficient_scope", scope="${scope}"` },
  }),
  NotFound: ({ message, errorCode }) => ({
    status: 404,
    body: envelope(404, message, errorCode === undefined ? {} : { error_code: errorCode }),
  }),
  AccessDenied: ({ message }) => ({ status: 403, body: envelope(403, message) }),
  Gone: ({ message }) => ({ status: 410, body: envelope(410, message) }),
  Conflict: ({ errorCode, message }) => ({ status: 409, body: envelope(409, message, { error_code: errorCode }) }),
  IdempotencyKeyReused: () => ({
    status: 422,
    body: envelope(422, messages.idempotencyKeyReused, { error_code: "idempotency_key_reused" }),
  }),
  PayloadTooLarge: ({ limitBytes }) => ({
    status: 413,
    body: envelope(413, payloadTooLargeMessage(limitBytes), { error_code: "payload_too_large" }),
  }),
  UnsupportedMediaType: ({ expected }) => ({
    status: 415,
    body: envelope(415, `Unsupported media type: expected ${expected}`),
  }),
  UnsupportedContentEncoding: () => ({
    status: 415,
    body: envelope(415, messages.unsupportedContentEncoding, { error_code: "unsupported_content_encoding" }),
    headers: { "Accept-Encoding": "identity" },
  }),
  RouteNotFound: () => ({ status: 404, body: envelope(404, messages.routeNotFound) }),
  MethodNotAllowed: ({ allow }) => ({
    status: 405,
    body: envelope(405, messages.methodNotAllowed),
    headers: { Allow: allow.join(", ") },
  }),
  RateLimited: ({ limit, retryAfterSeconds, resetSeconds }) => ({
    status: 429,
    body: envelope(429, messages.rateLimited, { error_code: "rate_limited" }),
    headers: {
      "Retry-After": String(retryAfterSeconds),
      "RateLimit-Limit": String(limit),
      "RateLimit-Remaining": "0",
      "RateLimit-Reset": String(resetSeconds),
    },
  }),
  TooManyConcurrentRequests: () => ({
    status: 429,
    body: envelope(429, messages.tooManyConcurrentRequests, { error_code: "too_many_concurrent_requests" }),
    headers: { "Retry-After": "1" },
  }),
  ServiceUnavailable: () => ({
    status: 503,
    body: envelope(503, messages.serviceUnavailable),
    headers: { "Retry-After": String(SERVICE_UNAVAILABLE_RETRY_SECONDS) },
  }),
  StillRunning: ({ message, errorCode, retryAfterSeconds }) => ({
    status: 503,
    body: envelope(503, message, { error_code: errorCode }),
    headers: { "Retry-After": String(retryAfterSeconds) },
  }),
  OAuthFailure: ({ error, description, status, retryAfterSeconds, allow }) => ({
    status,
    body: { error, error_description: description },
    headers: {
      "Cache-Control": "no-store",
      Pragma: "no-cache",
      // Every 401 names the scheme that authenticates here (RFC 9110 15.5.2; RFC 6749 5.2 for Basic clients).
      ...(status === 401 ? { "WWW-Authenticate": 'Basic realm="oauth", charset="UTF-8"' } : {}),
      ...(retryAfterSeconds === undefined ? {} : { "Retry-After": String(retryAfterSeconds) }),
      ...(allow === undefined ? {} : { Allow: allow.join(", ") }),
    },
  }),
};

export const isApiError = (value: unknown): value is ApiError =>
  typeof value === "object" && value !== null && "_tag" in value && Object.hasOwn(renderers, (value as { _tag: string })._tag);

/** Renders a known error; everything else is the caller's 500. */
export const renderApiError = (error: ApiError): RenderedError =>
  (renderers[error._tag] as (error: ApiError) => RenderedError)(error);

export const internalErrorResponse: RenderedError = { status: 500, body: envelope(500, messages.internal) };

/**
 * `error` (undefined: an unknown error, the 500) as the OAuth endpoints
 * answer it: every failure of the token and revocation endpoints is in RFC
 * 6749 5.2's shape, those raised outside their grants too (the database
 * unavailable, an internal error, a body cut short), with the status and
 * `Retry-After` the api envelope would have had.
 */
export const asOAuthFailure = (error: ApiError | undefined): OAuthFailure => {
  if (error === undefined) return new OAuthFailure({ error: "server_error", description: messages.internal, status: 500 });
  switch (error._tag) {
    case "OAuthFailure":
      return error;
    case "ServiceUnavailable":
      return new OAuthFailure({
        error: "temporarily_unavailable",
        description: messages.serviceUnavailable,
        status: 503,
        retryAfterSeconds: SERVICE_UNAVAILABLE_RETRY_SECONDS,
      });
    case "RateLimited":
      return new OAuthFailure({ error: "slow_down", description: messages.rateLimited, status: 429, retryAfterSeconds: error.retryAfterSeconds });
    case "TooManyConcurrentRequests":
      return new OAuthFailure({ error: "slow_down", description: messages.tooManyConcurrentRequests, status: 429, retryAfterSeconds: 1 });
    case "ValidationFailed": {
      const [field, problem] = Object.entries(error.details)[0] ?? ["request", messages.validationFailed];
      return new OAuthFailure({ error: "invalid_request", description: `${field}: ${problem}`, status: error.status ?? 400 });
    }
    default: {
      const { status, body } = renderApiError(error);
      const description = (body as { message?: string }).message ?? messages.internal;
      return new OAuthFailure({ error: status >= 500 ? "server_error" : "invalid_request", description, status });
    }
  }
};

const UNAVAILABLE_NODE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE"]);

/**
 * Translates infrastructure failures that are not bugs: a database that is
 * down or restarting, or a transaction chosen as a deadlock's victim, is 503
 * (retry later), not 500: nothing of the request was kept. Database constraint
 * violations are expected to be caught where they can happen; one that
 * reaches here is a bug and stays a 500.
 */
export const classifyUnexpected = (error: unknown): ApiError | undefined => {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  // A deadlock or serialization failure that reached here (one not retried where it happened) is transient too,
  // and so is a statement cancelled by the api's statement timeout or a lock not granted in time (docs/decisions/0020).
  if (isTransientFailure(error) || (typeof code === "string" && UNAVAILABLE_NODE_CODES.has(code))) {
    return new ServiceUnavailable();
  }
  // A PostgreSQL data exception (invalid text representation, bad encoding, numeric or datetime out of
  // range) caused by input that slipped past validation: the request is at fault, so 400, not 500.
  // Validation should catch these first; this is the safety net, logged as a warning.
  if (isDataException(error) && "severity" in error) {
    return new ValidationFailed({ details: { request: "a value is not valid for its field" } });
  }
  const message = (error as { message?: unknown }).message;
  // node-postgres: no connection in time, the server ended the session, or a query on a client whose session ended.
  const unreachable = /timeout exceeded when trying to connect|Connection terminated|is not queryable/i;
  if (typeof message === "string" && unreachable.test(message)) {
    return new ServiceUnavailable();
  }
  return undefined;
};
