/**
 * The OAuth 2.0 authorization server (contract 4.1, part 5 and 7.3): the token
 * endpoint at both of its paths, token revocation (RFC 7009), and the
 * browser-facing authorization endpoint, whose HTML and redirects are
 * declared as pages.
 */
import { Schema } from "effect";
import { endpoint, type ErrorCase, failurePages, page, type ResponseHeader } from "../endpoint.ts";
import { OAuthError } from "../envelopes.ts";
import { errorCases } from "../errors.ts";
import { Scope } from "../scopes.ts";

/** The largest form body read by the token and revocation endpoints and the authorization pages. */
export const OAUTH_FORM_BODY_BYTES = 16 * 1024;

const formField = (description: string) => Schema.optional(Schema.String.annotations({ description }));

/**
 * The form fields of every grant. All optional at the schema level: which are
 * required depends on `grant_type`, and a missing one is an OAuth
 * `invalid_request`, not an API validation envelope.
 */
export const TokenRequest = Schema.Struct({
  grant_type: formField("`client_credentials`, `authorization_code` or `refresh_token`"),
  client_id: formField("The client id (or use HTTP Basic authentication)"),
  client_secret: formField("The client secret (or use HTTP Basic authentication)"),
  scope: formField(
    "client_credentials: space-separated scopes, defaulting to every scope the client may request. " +
      "refresh_token: a subset of the refresh token's scopes (narrowing only); defaults to all of them",
  ),
  code: formField("authorization_code: the code received on the redirect URI"),
  redirect_uri: formField("authorization_code: the redirect URI used at authorization, identical"),
  code_verifier: formField("authorization_code: the PKCE verifier, required exactly when a challenge was sent"),
  refresh_token: formField("refresh_token: the refresh token to rotate"),
}).annotations({ identifier: "TokenRequest" });

export const TokenResponse = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.Literal("Bearer"),
  expires_in: Schema.Int.annotations({ description: "Seconds until the access token expires (3600)" }),
  refresh_token: Schema.optional(
    Schema.String.annotations({
      description:
        "authorization_code and refresh_token grants only (never client_credentials). Single use: each refresh returns " +
        "a new one; presenting a used one revokes every token of the authorization",
    }),
  ),
  scope: Schema.String.annotations({ description: "Space-separated granted scopes" }),
}).annotations({ identifier: "TokenResponse" });

const oauth = (status: number, message: string, description: string, headers?: ReadonlyArray<ResponseHeader>): ErrorCase => ({
  status,
  message,
  description,
  envelope: "oauth",
  ...(headers === undefined ? {} : { headers }),
});

const clientErrors: ReadonlyArray<ErrorCase> = [
  oauth(
    400,
    "invalid_request",
    "A required parameter is missing, repeated or malformed, or both HTTP Basic and form credentials were sent",
  ),
  oauth(
    401,
    "invalid_client",
    "Client authentication failed (unknown client, wrong secret, revoked client), with `WWW-Authenticate: Basic realm=\"oauth\"` whatever the method used: every 401 names its scheme",
    ["WWW-Authenticate"],
  ),
  oauth(413, "invalid_request", "The form body is larger than the endpoint's limit"),
  oauth(
    429,
    "slow_down",
    "Too many failed client authentications: more than 10 per client id or 30 per source address in a 15-minute window; see `Retry-After`",
    ["Retry-After"],
  ),
  oauth(500, "server_error", "Unexpected server failure (the response carries no internals)"),
  oauth(
    503,
    "temporarily_unavailable",
    "The database is unreachable or restarting, or a statement outlasted the api's statement timeout: nothing was " +
      "issued or revoked; retry after `Retry-After`",
    ["Retry-After"],
  ),
];

const tokenErrors: ReadonlyArray<ErrorCase> = [
  ...clientErrors,
  oauth(
    400,
    "invalid_grant",
    "Invalid, expired, replayed or foreign authorization code or refresh token; redirect_uri not identical to the one " +
      "used at authorization; PKCE verifier missing, unexpected or wrong",
  ),
  oauth(
    400,
    "invalid_scope",
    "A requested scope is unknown, not allowed for this client, or wider than the refresh token's",
  ),
  oauth(400, "unsupported_grant_type", "The grant type is not supported"),
];

const tokenEndpoint = (operationId: string, path: string, summary: string) =>
  endpoint({
    operationId,
    method: "post",
    path,
    scope: null,
    tags: ["OAuth 2.0"],
    summary,
    description:
      "Issues an access token (3600 s) for the `client_credentials`, `authorization_code` and `refresh_token` grants. " +
      "The client authenticates with `client_id` and `client_secret` form fields or with HTTP Basic, not both. " +
      "`authorization_code`: the code lives 5 minutes and is single use (a replayed code revokes every token issued " +
      "from it); `redirect_uri` must be identical to the one sent to `/oauth/authorize`; `code_verifier` is required " +
      "exactly when a PKCE `code_challenge` was sent. `refresh_token`: rotation on every use; a refresh token lives " +
      "30 days and its authorization at most 90 days; `scope` may narrow, never widen. `client_credentials` returns " +
      "no refresh token (RFC 6749 4.4.3). Responses carry `Cache-Control: no-store`.",
    body: { contentType: "application/x-www-form-urlencoded", schema: TokenRequest, maxBytes: OAUTH_FORM_BODY_BYTES },
    success: {
      status: 200,
      description: "The issued token",
      schema: TokenResponse,
      headers: { "Cache-Control": "no-store" },
    },
    errors: tokenErrors,
    rateLimit: "token",
  });

export const issueToken = tokenEndpoint("issueToken", "/oauth/token", "Issue an access token");
export const issueTokenAlias = tokenEndpoint(
  "issueTokenAlias",
  "/token",
  "Issue an access token (alias of /oauth/token)",
);

export const RevocationRequest = Schema.Struct({
  token: formField("The access token or refresh token to revoke"),
  token_type_hint: formField("`access_token` or `refresh_token`: a hint only, both kinds are searched"),
  client_id: formField("The client id (or use HTTP Basic authentication)"),
  client_secret: formField("The client secret (or use HTTP Basic authentication)"),
}).annotations({ identifier: "RevocationRequest" });

export const RevocationResponse = Schema.Record({ key: Schema.String, value: Schema.Never }).annotations({
  identifier: "RevocationResponse",
  description: "Always empty: the answer is the same whether or not the token existed",
});

export const revokeToken = endpoint({
  operationId: "revokeToken",
  method: "post",
  path: "/oauth/revoke",
  scope: null,
  tags: ["OAuth 2.0"],
  summary: "Revoke a token (RFC 7009)",
  description:
    "Revokes one of the authenticated client's tokens. A refresh token revokes its whole authorization (every access " +
    "and refresh token issued from it); an access token revokes that token only. An unknown, expired, already revoked " +
    "or foreign token is answered 200 like a revoked one and changes nothing (RFC 7009 2.2).",
  body: { contentType: "application/x-www-form-urlencoded", schema: RevocationRequest, maxBytes: OAUTH_FORM_BODY_BYTES },
  success: {
    status: 200,
    description: "The token is no longer valid (or never was a token of this client)",
    schema: RevocationResponse,
    headers: { "Cache-Control": "no-store" },
  },
  errors: clientErrors,
  rateLimit: "token",
});

const queryField = (description: string) => Schema.optional(Schema.String.annotations({ description }));

/** The authorization request (RFC 6749 4.1.1, RFC 7636 4.3). Checked by the server, not by the schema. */
const authorizationRequestFields = {
  response_type: queryField("`code`"),
  client_id: queryField("The client id"),
  redirect_uri: queryField("Exactly one of the client's registered redirect URIs (no normalisation)"),
  scope: queryField("Space-separated scopes, within the client's allowed set; defaults to all of them"),
  state: queryField("Opaque value returned unchanged on the redirect; use a fresh random value per request"),
  code_challenge: queryField("PKCE: BASE64URL(SHA-256(code_verifier)), 43 characters"),
  code_challenge_method: queryField("PKCE: `S256` (required with `code_challenge`; `plain` is refused)"),
} as const;

export const AuthorizationRequest = Schema.Struct(authorizationRequestFields).annotations({
  identifier: "AuthorizationRequest",
});

/** What the sign-in and consent forms post back: the authorization request, carried in hidden fields, plus the step. */
export const AuthorizationForm = Schema.Struct({
  ...authorizationRequestFields,
  action: Schema.Literal("sign_in", "approve", "deny", "sign_out").annotations({ description: "The step" }),
  csrf_token: queryField("The form's anti-forgery token, bound to the browser's sign-in cookie"),
  email: queryField("sign_in: the company user's e-mail"),
  password: queryField("sign_in: the company user's password"),
}).annotations({ identifier: "AuthorizationForm" });

const redirectHeaders = {
  Location: "The client's redirect URI with `code` and `state`, or `error` and `state`; always with `iss` (RFC 9207)",
};

export const authorize = page({
  operationId: "authorize",
  method: "get",
  path: "/oauth/authorize",
  tags: ["OAuth 2.0"],
  summary: "Authorization endpoint (sign in and consent)",
  description:
    "Starts the authorization-code flow in the user's browser. A company user signs in (e-mail and password), sees the " +
    "client's name and the requested scopes, and approves or denies; the browser then goes to `redirect_uri` with " +
    "`code` and the unchanged `state`, or with `error=access_denied`; every such response also carries `iss`, the issuer " +
    "of the metadata, for the client to compare (RFC 9207). A user may only authorize clients of their own " +
    "company. An unknown client or a `redirect_uri` that is not exactly registered is shown as an error page " +
    "(`redirect_uri_mismatch`), never redirected. The pages forbid framing and carry no CORS headers.",
  query: AuthorizationRequest,
  responses: [
    { status: 200, html: true, description: "The sign-in page, or the consent page when the browser is signed in" },
    {
      status: 302,
      html: false,
      description:
        "An invalid request of a known client to a registered redirect URI: `error` is `invalid_request`, " +
        "`unsupported_response_type` or `invalid_scope`, with `error_description`, `state` and `iss`",
      headers: redirectHeaders,
    },
    {
      status: 400,
      html: true,
      description:
        "Error page, never a redirect: unknown or revoked client, missing or unregistered redirect URI (`redirect_uri_mismatch`), repeated parameter",
    },
    {
      status: 403,
      html: true,
      description: "The signed-in user belongs to another company than the client's: they may only switch accounts",
    },
    ...failurePages,
  ],
});

export const submitAuthorization = page({
  operationId: "submitAuthorization",
  method: "post",
  path: "/oauth/authorize",
  tags: ["OAuth 2.0"],
  summary: "Sign in, approve or deny (form posts of the authorization pages)",
  description:
    "The forms of the authorization pages post here; the authorization request travels in hidden fields and is " +
    "checked again. Every post carries the anti-forgery token bound to the browser's sign-in cookie. Failed sign-ins " +
    "are limited to 10 per account and 30 per source address in 15 minutes.",
  body: { contentType: "application/x-www-form-urlencoded", schema: AuthorizationForm, maxBytes: OAUTH_FORM_BODY_BYTES },
  responses: [
    {
      status: 303,
      html: false,
      description:
        "`approve`: to `redirect_uri` with `code` (single use, 5 minutes), `state` and `iss`. `deny`: to `redirect_uri` " +
        "with `error=access_denied`, `state` and `iss`. `sign_in` (success) and `sign_out`: back to the authorization " +
        "endpoint. " +
        "303 rather than 302 so the browser never re-posts the form (RFC 9700 4.12)",
      headers: {
        Location: "Where the browser goes next: the client's redirect URI (with `iss`) or the authorization endpoint",
        "Set-Cookie": "The sign-in cookie (HttpOnly, SameSite=Lax, Secure over https)",
      },
    },
    { status: 400, html: true, description: "Sign-in failed, or the authorization request is invalid (error page)" },
    { status: 403, html: true, description: "Missing or invalid anti-forgery token, or a user of another company" },
    { status: 413, html: true, description: "The form is too large" },
    { status: 415, html: true, description: "The form is not `application/x-www-form-urlencoded`" },
    {
      status: 429,
      html: true,
      description: "Too many failed sign-ins for this account or source address",
      headers: { "Retry-After": "Seconds until sign-in may be tried again" },
    },
    ...failurePages,
  ],
});

/** How long a client or a cache may keep the metadata document (docs/decisions/0207). */
export const METADATA_MAX_AGE_SECONDS = 3600;

const absoluteUrl = (description: string, example: string) =>
  Schema.String.annotations({
    description,
    jsonSchema: { type: "string", format: "uri", examples: [example] },
  });

const names = (description: string) => Schema.Array(Schema.String).annotations({ description });

/**
 * The authorization server's metadata (RFC 8414 2). The values are this
 * server's configuration, assembled by the api from the code that enforces
 * them; the schema names the fields and their meaning only.
 */
export const AuthorizationServerMetadata = Schema.Struct({
  issuer: absoluteUrl(
    "The issuer identifier: `PUBLIC_BASE_URL`, an https origin without path, query or fragment. A client compares it " +
      "with the issuer it discovered, and with the `iss` parameter of every authorization response (RFC 9207)",
    "https://api.example.com",
  ),
  authorization_endpoint: absoluteUrl("The authorization endpoint (`/oauth/authorize`)", "https://api.example.com/oauth/authorize"),
  token_endpoint: absoluteUrl("The token endpoint (`/oauth/token`)", "https://api.example.com/oauth/token"),
  revocation_endpoint: absoluteUrl("The revocation endpoint (RFC 7009, `/oauth/revoke`)", "https://api.example.com/oauth/revoke"),
  scopes_supported: Schema.Array(Scope).annotations({ description: "Every scope a client may be allowed" }),
  response_types_supported: names("`code`: the authorization-code flow only"),
  response_modes_supported: names("`query`: authorization responses are query parameters of the redirect URI"),
  grant_types_supported: names("`authorization_code`, `client_credentials` and `refresh_token`"),
  token_endpoint_auth_methods_supported: names(
    "`client_secret_basic` and `client_secret_post` (one per request, never both)",
  ),
  revocation_endpoint_auth_methods_supported: names("The token endpoint's methods"),
  code_challenge_methods_supported: names("PKCE: `S256` only (`plain` is refused)"),
  service_documentation: absoluteUrl("The developer documentation (`/docs`)", "https://api.example.com/docs"),
  authorization_response_iss_parameter_supported: Schema.Boolean.annotations({
    description: "`true`: every authorization response, success or error, carries `iss` (RFC 9207)",
  }),
}).annotations({ identifier: "AuthorizationServerMetadata" });

export const getAuthorizationServerMetadata = endpoint({
  operationId: "getAuthorizationServerMetadata",
  method: "get",
  path: "/.well-known/oauth-authorization-server",
  scope: null,
  tags: ["OAuth 2.0"],
  summary: "Authorization server metadata (RFC 8414)",
  description:
    "The endpoints, scopes, grant types, client authentication methods and PKCE methods of this authorization " +
    "server, for OAuth libraries that discover a server from its issuer (oauth4webapi's `discoveryRequest` with " +
    "`algorithm: \"oauth2\"`, openid-client's `discovery`). This is not an OpenID provider: there is no " +
    "`/.well-known/openid-configuration`, no ID token and no JWKS (access tokens are opaque). The document changes " +
    "only with a deployment, so it may be cached for an hour; a server without a configured public origin " +
    "(development), whose issuer is the host each request names, answers `Cache-Control: no-store` instead.",
  success: {
    status: 200,
    description: "The metadata of this server",
    schema: AuthorizationServerMetadata,
    replyHeaders: {
      "Cache-Control":
        `\`public, max-age=${METADATA_MAX_AGE_SECONDS}\` from a server with a configured public origin; ` +
        "`no-store` from one without (development), whose issuer is the host each request names",
    },
  },
  errors: [errorCases.internal],
  rateLimit: "standard",
});

export { OAuthError };
