/**
 * `createClient`: the typed client of the external API, on openapi-fetch.
 * Paths, parameters, bodies and success data are typed from the OpenAPI
 * document; every call resolves to a `Result` (`{data}` or `{error}` with a
 * decoded `ClientError`) and never rejects. Tokens, 401 re-fetch and retries
 * happen underneath (transport.ts).
 */
import createFetchClient, {
  type Client as FetchClient,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
} from "openapi-fetch";
import { DEFAULT_ATTEMPT_TIMEOUT_MS, withAttemptTimeout } from "./attempt-timeout.ts";
import { DebtCollectionError, decodeErrorBody, fromThrown, type ClientError } from "./errors.ts";
import type { paths } from "./generated/openapi.ts";
import { defaultRetryPolicy, retryPolicy, sleep, type RetryOptions, type RetryPolicy } from "./retry.ts";
import { createTokenManager, type Clock, type TokenManager } from "./token-manager.ts";
import { createTransport, type RetryEvent } from "./transport.ts";

export interface ClientOptions {
  /** The API origin, e.g. `https://api.example.com` (paths already start with `/external-api/v1` or `/oauth`). */
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated scopes to request; by default every scope the OAuth client holds. */
  readonly scope?: string;
  /** A fetch to send requests with (a proxy agent, a test stub); defaults to the global fetch. */
  readonly fetch?: (request: Request) => Promise<Response>;
  /** Retry policy for 429, 503 and network errors on idempotent methods; `false` disables retries. */
  readonly retry?: RetryOptions | false;
  /**
   * Milliseconds one attempt (the API call or a token request) may wait for
   * its response's status and headers before it is aborted and counts as a
   * network failure (`reason: "attempt_timeout"`), retried under the retry
   * policy: idempotent methods and token requests only. Default 60,000;
   * `false` for none. The call's `signal` bounds the whole call, retries included.
   */
  readonly attemptTimeoutMs?: number | false;
  /** Renew the access token this many seconds before it expires (default 60). */
  readonly refreshSkewSeconds?: number;
  /** Headers sent with every API call (a `User-Agent` naming your integration, say). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Called before each retry; for logs and metrics. */
  readonly onRetry?: (event: RetryEvent) => void;
  /** Time source of the token cache (tests). */
  readonly clock?: Clock;
  /** How to wait between retries (tests); it may end early when the call's `signal` aborts. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random source of the backoff jitter, in [0, 1) (tests). */
  readonly random?: () => number;
}

/** What a call resolves to: the success body, or the decoded failure. `response` is absent when none came. */
export type Result<T> =
  | { readonly data: T; readonly error?: never; readonly response: Response }
  | { readonly data?: never; readonly error: ClientError; readonly response: Response | undefined };

type Media = `${string}/${string}`;
type HttpMethod = "get" | "put" | "post" | "delete" | "patch";
type RequiredKeysOfHelper<T> = { [K in keyof T]: Record<never, never> extends Pick<T, K> ? never : K }[keyof T];
type RequiredKeysOf<T> = RequiredKeysOfHelper<T> extends undefined ? never : RequiredKeysOfHelper<T>;

/** The variants of a union `Expected` that `Actual` is assignable to (all of them when none is). */
type Matching<Actual, Expected> = [Expected extends unknown ? (Actual extends Expected ? Expected : never) : never] extends [infer Found]
  ? [Found] extends [never]
    ? Expected
    : Found
  : Expected;
type ItemOf<Expected> = Expected extends ReadonlyArray<infer Item> ? Item : never;
type ExactKeys<Actual, Expected> = Expected extends unknown
  ? { [K in keyof Actual]: K extends keyof Expected ? Exact<Actual[K], Expected[K]> : never }
  : never;
/**
 * `Actual` with every property `Expected` does not declare typed `never`, at
 * any depth of objects and arrays. TypeScript checks excess properties only
 * of an object literal assigned to a known type; a generic parameter inferred
 * from the literal (openapi-fetch's `Init`) escapes that check, so
 * `body: { firstnme: "Jane" }` would compile and the API would answer 400.
 * Where `Expected` is open (`unknown`, a record) anything goes.
 */
type Exact<Actual, Expected> = 0 extends 1 & Actual
  ? Actual
  : unknown extends Expected
    ? Actual
    : Actual extends (...args: never) => unknown
      ? Actual
      : Actual extends ReadonlyArray<unknown>
        ? { [K in keyof Actual]: Exact<Actual[K], ItemOf<Expected>> }
        : Actual extends object
          ? ExactKeys<Actual, Matching<Actual, Expected>>
          : Actual;
/** The options of one call, checked exactly: top-level option names, and every field of `params` and `body`. */
type ExactInit<Init, Expected> = {
  [K in keyof Init]: K extends keyof Expected ? (K extends "body" | "params" ? Exact<Init[K], Expected[K]> : Init[K]) : never;
};
// As openapi-fetch's own: the init argument is optional exactly when nothing in it is required.
type InitParam<Init, Expected> =
  RequiredKeysOf<Init> extends never
    ? [(Init & NoInfer<ExactInit<Init, NonNullable<Expected>>>)?]
    : [Init & NoInfer<ExactInit<Init, NonNullable<Expected>>>];

// Methods a path lacks are `?: never` in the generated types; only the operations remain.
type Operation<T> = Extract<T, Record<string | number, unknown>>;

/** The raw openapi-fetch client (auth and retries included; errors left as response bodies). */
export type RawClient = FetchClient<paths, Media>;

/**
 * One HTTP method of the typed client, e.g. `client.GET("/external-api/v1/debts", {...})`.
 * Its options are checked exactly: a misspelled option, parameter or body field does not compile.
 */
export type Method<M extends HttpMethod> = <
  Path extends ClientPathsWithMethod<RawClient, M>,
  Init extends MaybeOptionalInit<paths[Path], M>,
>(
  url: Path,
  ...init: InitParam<Init, MaybeOptionalInit<paths[Path], M>>
) => Promise<Result<NonNullable<FetchResponse<Operation<paths[Path][M]>, Init, Media>["data"]>>>;

export interface DebtCollectionClient {
  readonly GET: Method<"get">;
  readonly PUT: Method<"put">;
  readonly POST: Method<"post">;
  readonly PATCH: Method<"patch">;
  readonly DELETE: Method<"delete">;
  /** The token cache: `tokens.get()` for a token to use elsewhere. */
  readonly tokens: TokenManager;
  /** openapi-fetch's client on the same transport, for what the typed methods do not cover (e.g. `parseAs`). */
  readonly raw: RawClient;
  readonly baseUrl: string;
}

type UntypedRequest = (
  method: string,
  url: string,
  init?: unknown,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * Creates a client for one OAuth client (`client_credentials`).
 *
 * @example
 * const api = createClient({ baseUrl: "https://api.example.com", clientId, clientSecret, scope: "debts:read" });
 * const result = await api.GET("/external-api/v1/debts", { params: { query: { limit: 100 } } });
 * if (result.error) console.error(result.error.kind, result.error);
 * else console.log(result.data.pagination.total);
 */
export const createClient = (options: ClientOptions): DebtCollectionClient => {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const send = withAttemptTimeout(
    options.fetch ?? ((request: Request) => globalThis.fetch(request)),
    options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS,
  );
  const tokens = createTokenManager({
    baseUrl,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    fetch: send,
    ...(options.scope === undefined ? {} : { scope: options.scope }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.refreshSkewSeconds === undefined ? {} : { refreshSkewSeconds: options.refreshSkewSeconds }),
  });
  const retry = { policy: retryPolicy(options.retry), sleep: options.sleep ?? sleep };
  const transport = createTransport({
    tokens,
    fetch: send,
    retry: retry.policy,
    sleep: retry.sleep,
    random: options.random ?? Math.random,
    ...(options.onRetry === undefined ? {} : { onRetry: options.onRetry }),
  });
  const raw = createFetchClient<paths, Media>({
    baseUrl,
    fetch: transport,
    headers: { accept: "application/json", ...options.headers },
  });
  // The one erasure point: openapi-fetch's generic signature is restored by the `Method` type below.
  const request = raw.request as unknown as UntypedRequest;

  const call =
    (method: string) =>
    async (url: string, init?: unknown): Promise<Result<unknown>> => {
      try {
        const { data, error, response } = await request(method, url, init);
        return response.ok ? { data, response } : { error: decodeErrorBody(response, error), response };
      } catch (thrown) {
        return { error: fromThrown(thrown), response: undefined };
      }
    };

  const client: DebtCollectionClient = {
    GET: call("GET") as Method<"get">,
    PUT: call("PUT") as Method<"put">,
    POST: call("POST") as Method<"post">,
    PATCH: call("PATCH") as Method<"patch">,
    DELETE: call("DELETE") as Method<"delete">,
    tokens,
    raw,
    baseUrl,
  };
  retrySettings.set(client, retry);
  return client;
};

/** What the helpers that chain calls need of a client's retry settings: its policy and its wait. */
export interface RetrySettings {
  readonly policy: RetryPolicy;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const retrySettings = new WeakMap<DebtCollectionClient, RetrySettings>();

/** The retry settings `client` was created with (the defaults for a client made elsewhere, a test double say). */
export const retrySettingsOf = (client: DebtCollectionClient): RetrySettings =>
  retrySettings.get(client) ?? { policy: defaultRetryPolicy, sleep };

/**
 * The success data of a result, or throws its error as a `DebtCollectionError`.
 * For code that prefers exceptions: `const debts = unwrap(await api.GET(...))`.
 */
export const unwrap = <T>(result: Result<T>): T => {
  if (result.error !== undefined) throw new DebtCollectionError(result.error);
  return result.data as T;
};
