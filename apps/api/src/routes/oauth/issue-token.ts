/**
 * POST /oauth/token and POST /token: authenticates the client (throttled),
 * then serves the client_credentials, authorization_code and refresh_token
 * grants. Every failure is an OAuthFailure, rendered as `{error,
 * error_description}` with `Cache-Control: no-store`.
 */
import type { TokenRequest, TokenResponse } from "@dc/contract";
import { OAuthFailure } from "../../http/api-error.ts";
import { authorizationHeader } from "../../auth/authorization-header.ts";
import type { HandlerInput, Reply } from "../../http/handler.ts";
import { authenticateClientRequest } from "../../oauth/client-authentication.ts";
import { invalidRequest } from "../../oauth/oauth-errors.ts";
import { tokenGrant } from "../../oauth/token-grants.ts";

export const issueToken = async (
  input: HandlerInput<unknown, unknown, typeof TokenRequest.Type, false>,
): Promise<Reply<typeof TokenResponse.Type>> => {
  const fields = input.body;
  const grantType = fields.grant_type;
  if (grantType === undefined) throw invalidRequest("Missing grant_type");

  const { services, ctx } = input;
  const client = await authenticateClientRequest(services, {
    authorization: authorizationHeader(ctx.req),
    address: ctx.ip,
    fields,
  });

  const grant = tokenGrant(grantType);
  if (grant === undefined) {
    throw new OAuthFailure({
      error: "unsupported_grant_type",
      description: `Unsupported grant_type: ${grantType}`,
      status: 400,
    });
  }
  return { body: await grant(services, client, fields), headers: { Pragma: "no-cache" } };
};
