/**
 * Checking an authorization request (RFC 6749 4.1.1 and 4.1.2.1, RFC 7636).
 * The order matters: until the client and its exactly registered redirect URI
 * are known, a problem is shown as an error page and never redirected (an
 * open redirector otherwise); after that, problems go back to the client on
 * its redirect URI.
 */
import { type AuthorizationRequest, parseScopeList, type Scope } from "@dc/contract";
import { findActiveClient, type OauthClient } from "@dc/db";
import * as JsonText from "@dc/json-text";
import type { AppServices } from "../services.ts";
import { codeChallengeMethods, isCodeChallenge } from "./pkce.ts";

/** The response types served: the authorization-code flow only (the metadata's `response_types_supported`). */
export const responseTypes: ReadonlyArray<string> = ["code"];

/** How responses reach the client: as query parameters of its redirect URI (`redirectWith`). */
export const responseModes: ReadonlyArray<string> = ["query"];

export type AuthorizationParameters = typeof AuthorizationRequest.Type;

export interface ValidAuthorization {
  readonly client: OauthClient;
  readonly redirectUri: string;
  readonly scopes: ReadonlyArray<Scope>;
  readonly state: string | undefined;
  readonly codeChallenge: string | undefined;
  /** The request's own parameters, carried unchanged through the forms. */
  readonly parameters: Readonly<Record<string, string>>;
}

export type AuthorizationCheck =
  | { readonly kind: "valid"; readonly authorization: ValidAuthorization }
  | {
      readonly kind: "error-page";
      readonly error: "invalid_request" | "invalid_client" | "redirect_uri_mismatch";
      readonly description: string;
    }
  | {
      readonly kind: "redirect-error";
      readonly redirectUri: string;
      readonly state: string | undefined;
      readonly error: "invalid_request" | "unsupported_response_type" | "invalid_scope";
      readonly description: string;
    };

const MAX_STATE_LENGTH = 2048;

const parameterNames = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
] as const satisfies ReadonlyArray<keyof AuthorizationParameters>;

/** The authorization-request parameters of a decoded query or form, without anything else. */
const authorizationParameters = (fields: AuthorizationParameters): Record<string, string> => {
  const parameters: Record<string, string> = {};
  for (const name of parameterNames) {
    const value = fields[name];
    if (value !== undefined) parameters[name] = value;
  }
  return parameters;
};

/** Checks an authorization request; `repeated` names the parameters sent more than once. */
export const checkAuthorizationRequest = async (
  services: AppServices,
  fields: AuthorizationParameters,
  repeated: ReadonlyArray<string>,
): Promise<AuthorizationCheck> => {
  const repeatedHere = repeated.filter((name) => (parameterNames as ReadonlyArray<string>).includes(name));
  if (repeatedHere.includes("client_id") || repeatedHere.includes("redirect_uri")) {
    return {
      kind: "error-page",
      error: "invalid_request",
      description: `Repeated parameter: ${repeatedHere.join(", ")}`,
    };
  }
  const clientId = fields.client_id;
  if (clientId === undefined) {
    return { kind: "error-page", error: "invalid_request", description: "The request has no client_id." };
  }
  // An id PostgreSQL cannot hold as text (NUL, a lone surrogate) names no client.
  const client =
    clientId.length > 200 || !JsonText.isStorable(clientId)
      ? undefined
      : await findActiveClient(services.db, clientId);
  if (client === undefined) {
    return { kind: "error-page", error: "invalid_client", description: "No active application has this client_id." };
  }
  const redirectUri = fields.redirect_uri;
  // Exact string comparison, no normalisation (RFC 9700 4.1.3).
  if (redirectUri === undefined || !client.redirect_uris.includes(redirectUri)) {
    return {
      kind: "error-page",
      error: "redirect_uri_mismatch",
      description:
        redirectUri === undefined
          ? "The request has no redirect_uri."
          : "The redirect_uri is not one of the application's registered redirect URIs.",
    };
  }
  const state = fields.state;
  const fail = (
    error: "invalid_request" | "unsupported_response_type" | "invalid_scope",
    description: string,
  ): AuthorizationCheck => ({
    kind: "redirect-error",
    redirectUri,
    state: state !== undefined && state.length <= MAX_STATE_LENGTH ? state : undefined,
    error,
    description,
  });
  if (repeatedHere.length > 0) return fail("invalid_request", `Repeated parameter: ${repeatedHere.join(", ")}`);
  if (state !== undefined && state.length > MAX_STATE_LENGTH)
    return fail("invalid_request", `state is longer than ${MAX_STATE_LENGTH} characters`);
  if (fields.response_type === undefined || !responseTypes.includes(fields.response_type)) {
    return fields.response_type === undefined
      ? fail("invalid_request", "response_type is required")
      : fail("unsupported_response_type", `Only response_type=${responseTypes.join(", ")} is supported`);
  }

  let scopes: ReadonlyArray<Scope> = client.allowed_scopes as Scope[];
  if (fields.scope !== undefined && fields.scope.trim() !== "") {
    const { scopes: known, unknown } = parseScopeList(fields.scope);
    const notAllowed = known.filter((scope) => !client.allowed_scopes.includes(scope));
    if (unknown.length > 0 || notAllowed.length > 0) {
      return fail("invalid_scope", `Scope not allowed for this client: ${[...unknown, ...notAllowed].join(" ")}`);
    }
    scopes = known;
  }
  if (scopes.length === 0) return fail("invalid_scope", "The client may not request any scope");

  const challenge = fields.code_challenge;
  const method = fields.code_challenge_method;
  if (challenge !== undefined || method !== undefined) {
    if (challenge === undefined) return fail("invalid_request", "code_challenge_method without code_challenge");
    // RFC 7636 4.3: an absent method means plain, which is refused.
    if (method === undefined || !codeChallengeMethods.includes(method))
      return fail(
        "invalid_request",
        `code_challenge_method must be ${codeChallengeMethods.join(", ")} (plain is not supported)`,
      );
    if (!isCodeChallenge(challenge)) return fail("invalid_request", "code_challenge must be 43 base64url characters");
  }

  return {
    kind: "valid",
    authorization: {
      client,
      redirectUri,
      scopes,
      state,
      codeChallenge: challenge,
      parameters: authorizationParameters(fields),
    },
  };
};

/**
 * An authorization response: the client's redirect URI with the response
 * parameters added, and always `iss`, the issuer (RFC 9207 2), so a client
 * talking to several servers can tell which one answered. The registered
 * URI's own query is kept byte for byte (RFC 6749 3.1.2); it never has a
 * fragment (registration refuses one).
 */
export const redirectWith = (
  redirectUri: string,
  issuer: string,
  parameters: Readonly<Record<string, string | undefined>>,
): string => {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) query.append(name, value);
  query.append("iss", issuer);
  const separator = redirectUri.includes("?")
    ? redirectUri.endsWith("?") || redirectUri.endsWith("&")
      ? ""
      : "&"
    : "?";
  return `${redirectUri}${separator}${query.toString()}`;
};
