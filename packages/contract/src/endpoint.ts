/**
 * One declaration per operation: method, path, scope, parameters, body, every
 * response. The api builds its router from these declarations and the OpenAPI
 * document is emitted from them, so an endpoint cannot exist undocumented.
 */
import type { Schema } from "effect";
import type { Scope } from "./scopes.ts";
import type { Tag } from "./tags.ts";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/** A documented error response: status and the exact message the contract names. */
/**
 * Response headers the api sends besides bodies, described once: the OpenAPI
 * document declares them under `components.headers` and references them.
 */
export const responseHeaders = {
  "WWW-Authenticate":
    'The authentication challenge: `Bearer realm="external-api"` on a 401, with `error="invalid_token"` when the bearer token sent is unknown, expired or revoked, and with `error="insufficient_scope"` and the `scope` needed on a 403 (RFC 6750); `Basic` on the OAuth endpoints when the client used HTTP Basic',
  "Retry-After": "Seconds to wait before trying again",
  "Accept-Encoding": "The content codings the api reads in a request body: only `identity` (uncompressed)",
  "RateLimit-Limit": "Requests the company may make on this operation's budget per window (`x-rate-limit`)",
  "RateLimit-Remaining": "Requests left in the current window",
  "RateLimit-Reset": "Seconds until the current window ends",
} as const;

export type ResponseHeader = keyof typeof responseHeaders;

/** The request header of the operations marked `idempotencyKey`, and what the OpenAPI document says of it. */
export const idempotencyKeyHeader = {
  name: "Idempotency-Key",
  description:
    "A key of your choosing, unique per request you mean to make once (a UUID is best): 1 to 255 visible ASCII " +
    "characters, bare or as a quoted string (`\"...\"`). When the write commits, its answer is kept under the key " +
    "for 24 hours, for the company: a retry with the same key and the same request (operation, parameters and body " +
    "bytes) gets that answer again, with `Idempotent-Replayed: true`, and writes nothing; a retry while the first is " +
    "still running waits for it. The same key with another request is refused with 422 " +
    "`idempotency_key_reused`. A request that failed (any 4xx or 5xx) records nothing, so its retry runs again.",
} as const;

/** The reply header that marks an answer given again for an `Idempotency-Key`. */
export const idempotentReplayedHeader = {
  name: "Idempotent-Replayed",
  description: "`true` when this is the recorded answer of an earlier request with the same `Idempotency-Key`",
} as const;

/** Sent on every answer of an operation with a rate limit, once its token is admitted. */
export const rateLimitHeaderNames: ReadonlyArray<ResponseHeader> = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"];

export interface ErrorCase {
  readonly status: number;
  readonly message: string;
  readonly description: string;
  /** The envelope: the API's `{error:true,...}`, or the OAuth `{error, error_description}`. */
  readonly envelope: "api" | "oauth";
  readonly errorCode?: string;
  /** Headers the api sends with this error (described once in `responseHeaders`). */
  readonly headers?: ReadonlyArray<ResponseHeader>;
}

/** Rate-limit classes (contract part 8); enforcement lives in the api. */
export type RateLimitClass = "standard" | "read" | "write" | "snapshot_chunk" | "snapshot_submit" | "token";

export interface Endpoint<
  Params = unknown,
  Query = unknown,
  Body = unknown,
  Success = unknown,
  RequiredScope extends Scope | null = Scope | null,
> {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Full path in OpenAPI form, e.g. `/external-api/v1/creditors/{id}`. */
  readonly path: string;
  /** The scope a bearer token must hold; `null` for unauthenticated operations (token, authorize, docs). */
  readonly scope: RequiredScope;
  readonly tags: ReadonlyArray<Tag>;
  readonly summary: string;
  readonly description: string;
  /** Path parameters: a struct of fields encoded as strings. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- schemas are invariant in their encoded type
  readonly params?: Schema.Schema<Params, any>;
  /** Query parameters: a struct of optional fields encoded as strings. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- schemas are invariant in their encoded type
  readonly query?: Schema.Schema<Query, any>;
  /**
   * Optional request headers the handler reads itself (documented only):
   * name -> what it asks for. A value the handler cannot use is ignored.
   */
  readonly requestHeaders?: Readonly<Record<string, string>>;
  readonly body?: {
    readonly contentType: "application/json" | "application/x-www-form-urlencoded";
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- schemas are invariant in their encoded type
    readonly schema: Schema.Schema<Body, any>;
    /** Bytes accepted before 413. */
    readonly maxBytes: number;
    /**
     * Set when the operation reports text PostgreSQL cannot store (a lone
     * UTF-16 surrogate) as errors of the rows it names, with every other row
     * error (snapshot rows: 422 `invalid_snapshot_row`, docs/decisions/0300),
     * instead of the 400 every other JSON body gets for it.
     */
    readonly unstorableTextPerRow?: true;
  };
  readonly success: {
    readonly status: number;
    readonly description: string;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- schemas are invariant in their encoded type
    readonly schema: Schema.Schema<Success, any>;
    /** Headers with a fixed value, set by the router on every success reply: name -> value. */
    readonly headers?: Readonly<Record<string, string>>;
    /** Headers the handler's reply sets per request (e.g. `Location`), documented only: name -> what it carries. */
    readonly replyHeaders?: Readonly<Record<string, string>>;
    /** Headers some replies carry (documented only, not required): name -> when, and what it carries. */
    readonly optionalReplyHeaders?: Readonly<Record<string, string>>;
  };
  /**
   * Set on the creating operations that take an `Idempotency-Key` header
   * (docs/decisions/0024): the api records the answer of a committed write
   * under the key and gives it again to a retry of the same request.
   */
  readonly idempotencyKey?: true;
  /** Further success statuses with the same body (e.g. 200 for an idempotent retry). */
  readonly alsoSucceedsWith?: ReadonlyArray<{ readonly status: number; readonly description: string }>;
  /**
   * Success replies whose body is a document rather than JSON (a stored
   * letter's PDF): status, media type and what it is. The handler answers
   * them with `document` in its reply.
   */
  readonly documentReplies?: ReadonlyArray<{
    readonly status: number;
    readonly contentType: string;
    readonly description: string;
  }>;
  readonly errors: ReadonlyArray<ErrorCase>;
  readonly rateLimit: RateLimitClass;
  /**
   * For a class counted per operation: the budget this operation counts
   * against, when one contract operation is served under several methods or
   * paths (the creditor update by PUT and PATCH, the debts-by-creditor list
   * and its alias). Defaults to `operationId` (docs/decisions/0011).
   */
  readonly rateLimitBudget?: string;
}

/**
 * Any endpoint, whatever its types: for code that walks the whole table (the
 * OpenAPI emitter, the router). Schemas are invariant, so only `any` fits all.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEndpoint = Endpoint<any, any, any, any, any>;

/** Declares an endpoint (identity, for inference). */
export const endpoint = <
  Params = unknown,
  Query = unknown,
  Body = unknown,
  Success = unknown,
  const RequiredScope extends Scope | null = Scope | null,
>(
  declaration: Endpoint<Params, Query, Body, Success, RequiredScope>,
): Endpoint<Params, Query, Body, Success, RequiredScope> => declaration;

export const API_PREFIX = "/external-api/v1";

/** Default request body limit for JSON operations other than snapshots. */
export const DEFAULT_JSON_BODY_BYTES = 1024 * 1024;

/** A response of a browser-facing operation: an HTML page, or a redirect when `html` is false. */
export interface PageResponse {
  readonly status: number;
  readonly description: string;
  readonly html: boolean;
  /** The media type of a body that is not HTML (an image, JSON); none when unset and `html` is false. */
  readonly contentType?: string;
  /** Response header name -> what it carries (e.g. `Location`). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * A JSON answer in the API's envelopes with one of these messages:
   * `{error:true, message, code}` for an error status, `{error:false, message}`
   * for a success (the JSON webhooks a provider calls).
   */
  readonly messages?: ReadonlyArray<string>;
  /** The `error_code` the error envelope of these messages carries, where it has one. */
  readonly errorCode?: string;
}

/**
 * A browser-facing operation (HTML pages and redirects, such as the OAuth
 * authorization endpoint). Documented in the OpenAPI document beside the
 * JSON endpoints, but served outside the JSON router; its query and body
 * schemas are the ones the server decodes with.
 */
export interface Page<Query = unknown, Body = unknown> {
  readonly operationId: string;
  readonly method: "get" | "post";
  readonly path: string;
  readonly tags: ReadonlyArray<Tag>;
  readonly summary: string;
  readonly description: string;
  /** Path parameters: a struct of strings. */
  readonly params?: Schema.Schema.Any;
  /** Query parameters: a struct of optional fields encoded as strings. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- schemas are invariant in their encoded type
  readonly query?: Schema.Schema<Query, any>;
  readonly body?: {
    readonly contentType: "application/x-www-form-urlencoded" | "application/json";
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- schemas are invariant in their encoded type
    readonly schema: Schema.Schema<Body, any>;
    readonly maxBytes: number;
    /**
     * The same form may also come as `multipart/form-data` (a form with a
     * file input): its schema (a file is a binary string), the bytes
     * accepted, and each file field's accepted media types.
     */
    readonly multipart?: {
      readonly schema: Schema.Schema.Any;
      readonly maxBytes: number;
      readonly files: Readonly<Record<string, ReadonlyArray<string>>>;
    };
  };
  readonly responses: ReadonlyArray<PageResponse>;
  /**
   * Failures answered in the API's JSON envelope rather than as a page (a
   * provider's webhook: the provider reads the status and retries).
   */
  readonly errors?: ReadonlyArray<ErrorCase>;
}

/**
 * How a page answers an unexpected failure (docs/decisions/0685): an HTML
 * page without internals, 503 with `Retry-After` when the database is
 * unavailable. The api answers every page that declares these this way.
 */
export const failurePages: ReadonlyArray<PageResponse> = [
  { status: 500, html: true, description: "Unexpected failure: nothing was done (the page carries no internals)" },
  {
    status: 503,
    html: true,
    description:
      "The database is unreachable or restarting, or a statement outlasted the api's statement timeout: nothing was done; " +
      "the page asks to try again shortly",
    headers: { "Retry-After": "Seconds after which to try again" },
  },
];

/** Any page, whatever its types (the OpenAPI emitter). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPage = Page<any, any>;

/** Declares a browser-facing operation (identity, for inference). */
export const page = <Query = unknown, Body = unknown>(declaration: Page<Query, Body>): Page<Query, Body> => declaration;
