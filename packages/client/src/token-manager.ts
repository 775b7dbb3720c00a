/**
 * Access tokens for the client: the `client_credentials` grant against
 * `/oauth/token`, cached and renewed a little before expiry. Concurrent
 * callers share one in-flight token request, so a burst of calls after
 * expiry costs one token, not one per call.
 */
import { DebtCollectionError, decodeErrorBody, networkError } from "./errors.ts";

/** Milliseconds since the epoch; inject one to test expiry without waiting. */
export interface Clock {
  readonly now: () => number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface TokenManagerOptions {
  /** API origin, e.g. `https://api.example.com` (the token endpoint is `${baseUrl}/oauth/token`). */
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated scopes; by default every scope the client may request. */
  readonly scope?: string;
  readonly fetch?: (request: Request) => Promise<Response>;
  readonly clock?: Clock;
  /** Renew this many seconds before the token expires (default 60), so no call carries a token about to lapse. */
  readonly refreshSkewSeconds?: number;
}

export interface AccessToken {
  readonly value: string;
  /** Epoch milliseconds at which the server stops accepting it. */
  readonly expiresAt: number;
  /** `expires_in` as granted, in milliseconds. */
  readonly lifetimeMs: number;
  readonly scope: string;
}

export interface TokenManager {
  /** A valid token: the cached one, or a new one when it is missing or within the skew of expiry. */
  readonly get: () => Promise<AccessToken>;
  /**
   * Forgets `token` if it is still the cached one (the API answered 401 to it:
   * revoked or expired early). Another caller's newer token is kept.
   */
  readonly invalidate: (token: AccessToken) => void;
}

interface TokenBody {
  readonly access_token: string;
  readonly expires_in: number;
  readonly scope?: string;
}

const isTokenBody = (body: unknown): body is TokenBody =>
  typeof body === "object" &&
  body !== null &&
  typeof (body as TokenBody).access_token === "string" &&
  typeof (body as TokenBody).expires_in === "number";

const parseJson = async (response: Response): Promise<unknown> => {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/**
 * Creates the token cache of one OAuth client. Failures reject with a
 * `DebtCollectionError` (`oauth` for a refused grant, `network`...), and the
 * next `get` tries again.
 *
 * @example
 * const tokens = createTokenManager({ baseUrl, clientId, clientSecret, scope: "debts:read" });
 * const { value } = await tokens.get();
 */
export const createTokenManager = (options: TokenManagerOptions): TokenManager => {
  const clock = options.clock ?? systemClock;
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const skewMs = (options.refreshSkewSeconds ?? 60) * 1000;
  const url = `${options.baseUrl.replace(/\/+$/, "")}/oauth/token`;
  let current: AccessToken | undefined;
  let inFlight: Promise<AccessToken> | undefined;

  const request = async (): Promise<AccessToken> => {
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: options.clientId,
      client_secret: options.clientSecret,
      ...(options.scope === undefined ? {} : { scope: options.scope }),
    });
    const requestedAt = clock.now();
    let response: Response;
    try {
      response = await send(
        new Request(url, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
          body: form.toString(),
        }),
      );
    } catch (cause) {
      throw new DebtCollectionError(networkError(cause));
    }
    const body = await parseJson(response);
    if (!response.ok) throw new DebtCollectionError(decodeErrorBody(response, body));
    if (!isTokenBody(body)) {
      throw new DebtCollectionError({ kind: "api", status: response.status, message: "Malformed token response", code: response.status });
    }
    // Counted from when the request left, so the cached expiry is never later than the server's.
    return { value: body.access_token, expiresAt: requestedAt + body.expires_in * 1000, lifetimeMs: body.expires_in * 1000, scope: body.scope ?? "" };
  };

  // A token granted for less than twice the skew is renewed at half its life, not at once.
  const fresh = (token: AccessToken | undefined): token is AccessToken =>
    token !== undefined && clock.now() < token.expiresAt - Math.min(skewMs, token.lifetimeMs / 2);

  return {
    get: () => {
      if (fresh(current)) return Promise.resolve(current);
      inFlight ??= request()
        .then((token) => {
          current = token;
          return token;
        })
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    },
    invalidate: (token) => {
      if (current?.value === token.value) current = undefined;
    },
  };
};
