/** The documented error responses shared by many operations (contract 7.1). */
import { DEFAULT_JSON_BODY_BYTES, type ErrorCase, rateLimitHeaderNames, type ResponseHeader } from "./endpoint.ts";

export const messages = {
  validationFailed: "Validation failed",
  unauthorized: "Authentication credentials are missing or invalid",
  missingScope: (scope: string) => `Required scope "${scope}" not found in token`,
  debtAccessDenied: "Access denied to this debt",
  creditorNotFound: "Creditor not found",
  debtNotFound: "Debt not found",
  companyNotFound: "Company not found",
  internal: "Internal server error",
  rateLimited: "Rate limit exceeded",
  tooManyConcurrentRequests: "Too many concurrent requests",
  payloadTooLarge: "Request body too large",
  unsupportedMediaType: "Unsupported media type: expected application/json",
  unsupportedContentEncoding: "Unsupported content encoding: send the body uncompressed (identity)",
  malformedJson: "Malformed JSON body",
  routeNotFound: "Route not found",
  methodNotAllowed: "Method not allowed",
  serviceUnavailable: "Service temporarily unavailable",
  // Answered before routing, for requests Node's HTTP parser refuses (docs/decisions/0019).
  malformedHttpRequest: "Malformed HTTP request",
  headersTooLarge: "Request header fields too large",
  chunkExtensionsTooLarge: "Chunk extensions too large",
  requestTimeout: "Request timeout: the request did not arrive in time",
  expectationFailed: "Expectation failed: the only Expect value served is 100-continue",
  idempotencyKeyReused: "Idempotency-Key already used for a different request",
} as const;

/**
 * Answers given before any operation is routed, to requests Node's HTTP
 * parser refuses (docs/decisions/0019), in the API envelope with this
 * `error_code`. The api answers from this table; the OpenAPI document's
 * description lists it, since any path can receive them.
 */
export const parserRefusals = [
  { status: 400, message: messages.malformedHttpRequest, errorCode: "malformed_http_request" },
  { status: 408, message: messages.requestTimeout, errorCode: "request_timeout" },
  { status: 413, message: messages.chunkExtensionsTooLarge, errorCode: "payload_too_large" },
  { status: 417, message: messages.expectationFailed, errorCode: "expectation_failed" },
  { status: 431, message: messages.headersTooLarge, errorCode: "request_header_fields_too_large" },
] as const;

export type ParserRefusal = (typeof parserRefusals)[number];

/** The 413 message, naming the operation's limit. */
export const payloadTooLargeMessage = (limitBytes: number): string =>
  `${messages.payloadTooLarge}: the limit is ${limitBytes} bytes`;

const api = (
  status: number,
  message: string,
  description: string,
  errorCode?: string,
  headers?: ReadonlyArray<ResponseHeader>,
): ErrorCase => ({
  status,
  message,
  description,
  envelope: "api",
  ...(errorCode === undefined ? {} : { errorCode }),
  ...(headers === undefined ? {} : { headers }),
});

export const errorCases = {
  validation: api(400, messages.validationFailed, "The request is invalid; `details` names each field"),
  unauthorized: api(401, messages.unauthorized, "Missing, malformed, expired or revoked bearer token", undefined, [
    "WWW-Authenticate",
  ]),
  missingScope: (scope: string) =>
    api(403, messages.missingScope(scope), `The token lacks the \`${scope}\` scope`, undefined, ["WWW-Authenticate"]),
  notFound: (message: string) => api(404, message, "Unknown id, or an id of another company"),
  debtAccessDenied: api(403, messages.debtAccessDenied, "The debt exists but this token may not act on it"),
  payloadTooLarge: (limitBytes: number) =>
    api(413, payloadTooLargeMessage(limitBytes), `The body exceeds ${limitBytes} bytes`, "payload_too_large"),
  unsupportedMediaType: api(415, messages.unsupportedMediaType, "The body is not `application/json`"),
  unsupportedContentEncoding: api(
    415,
    messages.unsupportedContentEncoding,
    "The body is compressed (`Content-Encoding` other than `identity`): it is refused unread; `Accept-Encoding` names the one coding accepted (RFC 9110 12.5.3)",
    "unsupported_content_encoding",
    ["Accept-Encoding"],
  ),
  rateLimited: api(
    429,
    messages.rateLimited,
    "The company exceeded this operation's rate limit; see `Retry-After`",
    "rate_limited",
    ["Retry-After", ...rateLimitHeaderNames],
  ),
  tooManyConcurrentRequests: api(
    429,
    messages.tooManyConcurrentRequests,
    "The company already has as many requests in progress on this api process as it may (`MAX_CONCURRENT_REQUESTS_PER_COMPANY`); retry after `Retry-After`",
    "too_many_concurrent_requests",
    ["Retry-After"],
  ),
  idempotencyKeyReused: api(
    422,
    messages.idempotencyKeyReused,
    "The `Idempotency-Key` was sent within the last 24 hours with another request (another operation, other " +
      "parameters or other body bytes); nothing was written",
    "idempotency_key_reused",
  ),
  internal: api(500, messages.internal, "Unexpected server failure (the response carries no internals)"),
  serviceUnavailable: api(
    503,
    messages.serviceUnavailable,
    "The database is unreachable or restarting, or a statement outlasted the api's statement timeout: the request's " +
      "transaction was rolled back; retry after `Retry-After`. Only a connection lost during the commit itself leaves " +
      "the outcome unknown: a write that carries its identity (an `Idempotency-Key`, `internal_id`, the snapshot " +
      "reference) is safe to repeat; read before repeating one that does not",
    undefined,
    ["Retry-After"],
  ),
} as const;

/** Unexpected failures, in the API envelope: the answers of the provider webhooks when recording fails. */
export const failureErrors: ReadonlyArray<ErrorCase> = [errorCases.internal, errorCases.serviceUnavailable];

/** The errors every bearer-protected operation can answer. */
export const protectedErrors = (scope: string): ReadonlyArray<ErrorCase> => [
  errorCases.unauthorized,
  errorCases.missingScope(scope),
  errorCases.rateLimited,
  errorCases.tooManyConcurrentRequests,
  errorCases.internal,
  errorCases.serviceUnavailable,
];

/** The errors of a JSON body that may hold `limitBytes`: invalid, too large, not JSON. */
export const jsonBodyErrors = (limitBytes: number = DEFAULT_JSON_BODY_BYTES): ReadonlyArray<ErrorCase> => [
  errorCases.validation,
  errorCases.payloadTooLarge(limitBytes),
  errorCases.unsupportedMediaType,
  errorCases.unsupportedContentEncoding,
];
