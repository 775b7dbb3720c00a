/**
 * One declaration per operation: method, path, scope, parameters, body, every
 * response. The api builds its router from these declarations and the OpenAPI
 * document is emitted from them, so an endpoint cannot exist undocumented.
 */
import type { Schema } from "effect";
import type { Scope } from "./scopes.ts";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/** A documented error response: status and the exact message the contract names. */
export interface ErrorCase {
  readonly status: number;
  readonly message: string;
  readonly description: string;
  /** The envelope: the API's `{error:true,...}`, or the OAuth `{error, error_description}`. */
  readonly envelope: "api" | "oauth";
  readonly errorCode?: string;
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
  readonly tags: ReadonlyArray<string>;
  readonly summary: string;
  readonly description: string;
  readonly params?: Schema.Schema<Params, Readonly<Record<string, string>>>;
  readonly query?: Schema.Schema<Query, Readonly<Record<string, string | ReadonlyArray<string> | undefined>>>;
  readonly body?: {
    readonly contentType: "application/json" | "application/x-www-form-urlencoded";
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- schemas are invariant in their encoded type
    readonly schema: Schema.Schema<Body, any>;
    /** Bytes accepted before 413. */
    readonly maxBytes: number;
  };
  readonly success: {
    readonly status: number;
    readonly description: string;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- schemas are invariant in their encoded type
    readonly schema: Schema.Schema<Success, any>;
    readonly headers?: Readonly<Record<string, string>>;
  };
  /** Further success statuses with the same body (e.g. 200 for an idempotent retry). */
  readonly alsoSucceedsWith?: ReadonlyArray<{ readonly status: number; readonly description: string }>;
  readonly errors: ReadonlyArray<ErrorCase>;
  readonly rateLimit: RateLimitClass;
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
