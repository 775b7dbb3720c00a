/**
 * `@dc/client`: the typed client of the debt-collection platform's external
 * API. Start with `createClient`; list operations go through `paginate`.
 * Every call resolves to `{data}` or `{error}` (a `ClientError`); the
 * helpers that chain calls throw a `DebtCollectionError` carrying the same
 * error. This entry depends on openapi-fetch only; snapshots (row checks
 * with the domain's rules, chunked uploads, waiting for the outcome) are in
 * `@dc/client/snapshots`, which loads `@dc/domain`.
 */
export { createClient, unwrap } from "./client.ts";
export type { ClientOptions, DebtCollectionClient, Method, RawClient, Result } from "./client.ts";
export { DEFAULT_ATTEMPT_TIMEOUT_MS } from "./attempt-timeout.ts";
export { AttemptTimeoutError, DebtCollectionError, decodeErrorBody, describe } from "./errors.ts";
export type { ApiError, ClientError, NetworkError, OAuthError, RateLimited } from "./errors.ts";
export { paginate, paginatePages } from "./paginate.ts";
export type { Page, PaginateOptions } from "./paginate.ts";
export { backoffDelay, defaultRetryPolicy, isIdempotent } from "./retry.ts";
export type { RetryOptions, RetryPolicy } from "./retry.ts";
export { createTokenManager, systemClock } from "./token-manager.ts";
export type { AccessToken, Clock, TokenManager, TokenManagerOptions } from "./token-manager.ts";
export type { RetryEvent } from "./transport.ts";
export type { components, operations, paths } from "./generated/openapi.ts";
