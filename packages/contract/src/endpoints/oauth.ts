/** The OAuth 2.0 token endpoint (contract 4.1 and part 5), at both of its paths. */
import { Schema } from "effect";
import { endpoint, type ErrorCase } from "../endpoint.ts";
import { OAuthError } from "../envelopes.ts";
import { errorCases } from "../errors.ts";

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
  scope: formField("Space-separated scopes; defaults to every scope the client may request"),
  code: formField("authorization_code: the code received on the redirect URI"),
  redirect_uri: formField("authorization_code: the redirect URI used at authorization, identical"),
  code_verifier: formField("authorization_code: the PKCE verifier when a challenge was sent"),
  refresh_token: formField("refresh_token: the refresh token to rotate"),
}).annotations({ identifier: "TokenRequest" });

export const TokenResponse = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.Literal("Bearer"),
  expires_in: Schema.Int.annotations({ description: "Seconds until the access token expires (3600)" }),
  refresh_token: Schema.optional(Schema.String),
  scope: Schema.String.annotations({ description: "Space-separated granted scopes" }),
}).annotations({ identifier: "TokenResponse" });

const oauth = (status: number, message: string, description: string): ErrorCase => ({
  status,
  message,
  description,
  envelope: "oauth",
});

const tokenErrors: ReadonlyArray<ErrorCase> = [
  oauth(400, "invalid_request", "A required parameter is missing, repeated or malformed"),
  oauth(401, "invalid_client", "Client authentication failed (unknown client, wrong secret, revoked client)"),
  oauth(400, "invalid_grant", "Invalid, expired, replayed or foreign authorization code or refresh token"),
  oauth(400, "invalid_scope", "A requested scope is unknown or not allowed for this client"),
  oauth(400, "unsupported_grant_type", "The grant type is not supported"),
  oauth(429, "slow_down", "Too many failed client authentications; see `Retry-After`"),
  errorCases.internal,
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
      "Responses carry `Cache-Control: no-store`.",
    body: { contentType: "application/x-www-form-urlencoded", schema: TokenRequest, maxBytes: 16 * 1024 },
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
export { OAuthError };
