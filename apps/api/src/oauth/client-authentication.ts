/**
 * Client authentication at the token and revocation endpoints (RFC 6749
 * 2.3.1): by HTTP Basic or by `client_id` + `client_secret` form fields,
 * never both; failures are counted per client id and per source address
 * (docs/decisions/0203).
 */
import { findClient, type OauthClient } from "@dc/db";
import * as JsonText from "@dc/json-text";
import { schemeCredentials } from "../auth/authorization-header.ts";
import { OAuthFailure } from "../http/api-error.ts";
import type { AppServices } from "../services.ts";
import {
  exhaustedSubject,
  failureRules,
  type FailureSubject,
  overLimit,
  recordFailure,
  subjectKey,
} from "./failure-throttle.ts";
import { secretMatches } from "./secrets.ts";

/**
 * The client authentication methods this module accepts, by their
 * registered names (RFC 7591 2, RFC 8414 2): HTTP Basic and the form fields.
 * The metadata's `token_endpoint_auth_methods_supported` and
 * `revocation_endpoint_auth_methods_supported` read this.
 */
export const clientAuthenticationMethods = {
  basic: "client_secret_basic",
  form: "client_secret_post",
} as const;

export interface PresentedCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly method: keyof typeof clientAuthenticationMethods;
}

const invalidClient = (description = "Client authentication failed") =>
  new OAuthFailure({ error: "invalid_client", description, status: 401 });

const invalidRequest = (description: string) =>
  new OAuthFailure({ error: "invalid_request", description, status: 400 });

/** Decodes `Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 2.3.1). */
const parseBasic = (header: string): { id: string; secret: string } | undefined => {
  const encoded = schemeCredentials(header, "Basic");
  if (encoded === undefined || !/^[A-Za-z0-9+/]+=*$/.test(encoded)) return undefined;
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  // application/x-www-form-urlencoded decoding: `+` is a space, then the %XX escapes.
  const formDecode = (value: string) => decodeURIComponent(value.replaceAll("+", " "));
  try {
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
};

/** Which credentials the request presents, or an OAuth error for an ambiguous or malformed presentation. */
export const presentedCredentials = (
  authorization: string | undefined,
  fields: { readonly client_id?: string | undefined; readonly client_secret?: string | undefined },
): PresentedCredentials => {
  const formSecret = fields.client_secret;
  const formId = fields.client_id;
  if (authorization !== undefined && authorization !== "") {
    const basic = parseBasic(authorization);
    if (basic === undefined) throw invalidClient("Malformed HTTP Basic credentials");
    if (formSecret !== undefined) throw invalidRequest("Use either HTTP Basic or client_secret in the body, not both");
    if (formId !== undefined && formId !== basic.id)
      throw invalidRequest("client_id differs from the HTTP Basic client id");
    return { clientId: basic.id, clientSecret: basic.secret, method: "basic" };
  }
  if (formId === undefined) throw invalidClient("Missing client_id");
  if (formSecret === undefined) throw invalidClient("Missing client_secret");
  return { clientId: formId, clientSecret: formSecret, method: "form" };
};

/** The active client the credentials authenticate, or invalid_client. */
const authenticateClient = async (
  services: AppServices,
  credentials: PresentedCredentials,
): Promise<OauthClient> => {
  // An id PostgreSQL cannot hold as text (NUL, a lone surrogate) names no client.
  const client = JsonText.isStorable(credentials.clientId)
    ? await findClient(services.db, credentials.clientId)
    : undefined;
  // The secret check runs even for an unknown client so both paths cost the same.
  const matches = secretMatches(credentials.clientSecret, client?.secret_hash ?? "00".repeat(32));
  if (client === undefined || !matches || client.revoked_at !== null) {
    throw invalidClient();
  }
  return client;
};

const slowDown = (retryAfterSeconds: number) =>
  new OAuthFailure({
    error: "slow_down",
    description: "Too many failed client authentications; retry after the time in Retry-After",
    status: 429,
    retryAfterSeconds,
  });

export interface ClientRequest {
  readonly authorization: string | undefined;
  /** The source address the failures of this request are counted against. */
  readonly address: string;
  readonly fields: { readonly client_id?: string | undefined; readonly client_secret?: string | undefined };
}

/**
 * Authenticates the client of a token or revocation request, throttling
 * failures. An address past its limit is refused before its credentials are
 * checked. A client id past its limit has its failures answered with 429
 * instead of 401, but valid credentials still succeed: the client id is
 * public (it travels in authorization URLs), so a lock-out would let anyone
 * disable an integration, while a 256-bit secret gains nothing from one.
 */
export const authenticateClientRequest = async (
  services: AppServices,
  request: ClientRequest,
): Promise<OauthClient> => {
  const address: FailureSubject = { rule: failureRules.clientPerAddress, subject: subjectKey(request.address) };
  const exhausted = await exhaustedSubject(services, [address]);
  if (exhausted !== undefined) throw slowDown(exhausted.retryAfterSeconds);

  const failed = async (error: unknown, subjects: ReadonlyArray<FailureSubject>): Promise<never> => {
    if (error instanceof OAuthFailure && error.error === "invalid_client") {
      const wait = overLimit(await recordFailure(services, subjects));
      if (wait !== undefined) throw slowDown(wait);
    }
    throw error;
  };
  let credentials: PresentedCredentials;
  try {
    credentials = presentedCredentials(request.authorization, request.fields);
  } catch (error) {
    return failed(error, [address]);
  }
  try {
    return await authenticateClient(services, credentials);
  } catch (error) {
    return failed(error, [address, { rule: failureRules.clientPerId, subject: subjectKey(credentials.clientId) }]);
  }
};
