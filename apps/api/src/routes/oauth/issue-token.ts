/**
 * POST /oauth/token and POST /token: authenticates the client (throttled),
 * then serves the client_credentials, authorization_code and refresh_token
 * grants. Every failure is an OAuthFailure, rendered as `{error,
 * error_description}` with `Cache-Control: no-store`.
 */
import type { TokenRequest, TokenResponse } from "@dc/contract";
import { OAuthFailure } from "../../http/api-error.ts";
import type { HandlerInput, Reply } from "../../http/handler.ts";
import { redeemAuthorizationCode } from "../../oauth/authorization-codes.ts";
import { authenticateClientRequest } from "../../oauth/client-authentication.ts";
import { clientCredentialsTokens } from "../../oauth/client-credentials.ts";
import type { IssuedTokens } from "../../oauth/issue-tokens.ts";
import { invalidRequest } from "../../oauth/oauth-errors.ts";
import { refreshTokens } from "../../oauth/refresh-tokens.ts";

export const issueToken = async (
  input: HandlerInput<unknown, unknown, typeof TokenRequest.Type, false>,
): Promise<Reply<typeof TokenResponse.Type>> => {
  const fields = input.body;
  const grantType = fields.grant_type;
  if (grantType === undefined) throw invalidRequest("Missing grant_type");

  const { services, ctx } = input;
  const client = await authenticateClientRequest(services, {
    authorization: ctx.get("authorization") || undefined,
    address: ctx.ip,
    fields,
  });

  let tokens: IssuedTokens;
  switch (grantType) {
    case "client_credentials":
      tokens = await clientCredentialsTokens(services, client, fields.scope);
      break;
    case "authorization_code":
      tokens = await redeemAuthorizationCode(services, client, {
        code: fields.code,
        redirectUri: fields.redirect_uri,
        codeVerifier: fields.code_verifier,
      });
      break;
    case "refresh_token":
      tokens = await refreshTokens(services, client, { refreshToken: fields.refresh_token, scope: fields.scope });
      break;
    default:
      throw new OAuthFailure({
        error: "unsupported_grant_type",
        description: `Unsupported grant_type: ${grantType}`,
        status: 400,
      });
  }
  return { body: tokens, headers: { Pragma: "no-cache" } };
};
