/**
 * The client_credentials grant (RFC 6749 4.4): the client's own access, no
 * user, and no refresh token (4.4.3; docs/decisions/0202), since the client
 * can always authenticate again.
 */
import { parseScopeList } from "@dc/contract";
import { insertGrant, type OauthClient } from "@dc/db";
import type { AppServices } from "../services.ts";
import { type IssuedTokens, issueTokens } from "./issue-tokens.ts";
import { invalidScope } from "./oauth-errors.ts";

/** Issues an access token for `scope` (default: every scope the client may request). */
export const clientCredentialsTokens = async (
  services: AppServices,
  client: OauthClient,
  requested: string | undefined,
): Promise<IssuedTokens> => {
  let scopes: ReadonlyArray<string> = client.allowed_scopes;
  if (requested !== undefined) {
    const { scopes: known, unknown } = parseScopeList(requested);
    const notAllowed = known.filter((scope) => !client.allowed_scopes.includes(scope));
    if (unknown.length > 0 || notAllowed.length > 0 || known.length === 0) {
      throw invalidScope(`Scope not allowed for this client: ${[...unknown, ...notAllowed].join(" ") || "(empty)"}`);
    }
    scopes = known;
  }
  if (scopes.length === 0) throw invalidScope("The client may not request any scope");
  const now = services.clock.now();
  return services.db.transaction().execute(async (trx) => {
    const grantId = await insertGrant(trx, {
      companyId: client.company_id,
      clientPk: client.id,
      grantType: "client_credentials",
      scopes,
      now,
    });
    return issueTokens(trx, {
      companyId: client.company_id,
      clientPk: client.id,
      grantId,
      scopes,
      withRefreshToken: false,
      now,
    });
  });
};
