/**
 * POST /oauth/token and POST /token. This walking-skeleton version serves the
 * client_credentials grant; the authorization_code and refresh_token grants
 * answer unsupported_grant_type until the authorization server lands.
 */
import { parseScopeList, type TokenRequest, type TokenResponse } from "@dc/contract";
import { OAuthFailure } from "../../http/api-error.ts";
import type { HandlerInput, Reply } from "../../http/handler.ts";
import { authenticateClient, presentedCredentials } from "../../oauth/client-authentication.ts";
import { issueTokens } from "../../oauth/issue-tokens.ts";

const invalidRequest = (description: string) => new OAuthFailure({ error: "invalid_request", description, status: 400 });

export const issueToken = async (
  input: HandlerInput<unknown, unknown, typeof TokenRequest.Type, false>,
): Promise<Reply<typeof TokenResponse.Type>> => {
  const fields = input.body;
  const grantType = fields.grant_type;
  if (grantType === undefined || grantType === "") throw invalidRequest("Missing grant_type");

  const { services } = input;
  const credentials = presentedCredentials(input.ctx.get("authorization") || undefined, fields);
  const client = await authenticateClient(services, credentials);

  if (grantType !== "client_credentials") {
    throw new OAuthFailure({ error: "unsupported_grant_type", description: `Unsupported grant_type: ${grantType}`, status: 400 });
  }
  const requested = fields.scope;
  let scopes: ReadonlyArray<string> = client.allowed_scopes;
  if (requested !== undefined) {
    const { scopes: known, unknown } = parseScopeList(requested);
    const notAllowed = known.filter((scope) => !client.allowed_scopes.includes(scope));
    if (unknown.length > 0 || notAllowed.length > 0 || known.length === 0) {
      throw new OAuthFailure({
        error: "invalid_scope",
        description: `Scope not allowed for this client: ${[...unknown, ...notAllowed].join(" ") || "(empty)"}`,
        status: 400,
      });
    }
    scopes = known;
  }
  const now = services.clock.now();
  const tokens = await services.db.transaction().execute(async (trx) => {
    const grant = await trx
      .insertInto("oauth_grants")
      .values({
        company_id: client.company_id,
        client_pk: client.id,
        grant_type: "client_credentials",
        scopes: [...scopes],
        created_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    // RFC 6749 4.4.3: no refresh token for client_credentials (docs/decisions/0004).
    return issueTokens(trx, {
      companyId: client.company_id,
      clientPk: client.id,
      grantId: grant.id,
      scopes,
      withRefreshToken: false,
      now,
    });
  });
  return { body: tokens, headers: { Pragma: "no-cache" } };
};
