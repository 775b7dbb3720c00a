/**
 * The refresh_token grant (RFC 6749 6, RFC 9700 4.14): every refresh token is
 * single use. It is rotated by a conditional update, so of concurrent
 * refreshes with one token exactly one wins; a token presented after its
 * rotation means it leaked (or the client is broken), and the whole family,
 * that is the grant with every token issued from it, is revoked. Scope may
 * narrow for the new access token, never widen; the new refresh token keeps
 * the original scope (RFC 6749 6). Lifetimes: docs/decisions/0201.
 */
import { parseScopeList } from "@dc/contract";
import { findGrantUser, findRefreshTokenRotation, type OauthClient, revokeGrant, rotateRefreshToken } from "@dc/db";
import type { AppServices } from "../services.ts";
import { AUTHORIZATION_MAX_SECONDS, type IssuedTokens, issueTokens } from "./issue-tokens.ts";
import { invalidGrant, invalidRequest, invalidScope } from "./oauth-errors.ts";
import { hashSecret } from "./secrets.ts";

export interface RefreshRequest {
  readonly refreshToken: string | undefined;
  /** Optional narrowing (space-separated). */
  readonly scope: string | undefined;
}

/** Rotates a refresh token and issues a new access token, or throws the OAuth error. */
export const refreshTokens = async (
  services: AppServices,
  client: OauthClient,
  request: RefreshRequest,
): Promise<IssuedTokens> => {
  const presented = request.refreshToken;
  if (presented === undefined) throw invalidRequest("Missing refresh_token");
  const now = services.clock.now();
  const tokenHash = hashSecret(presented);

  const outcome = await services.db.transaction().execute(async (trx) => {
    const row = await rotateRefreshToken(trx, tokenHash, now);
    if (row === undefined) {
      const rotated = await findRefreshTokenRotation(trx, tokenHash);
      if (rotated !== undefined && rotated.rotated_at !== null) {
        await revokeGrant(trx, rotated.grant_id, now);
        return { kind: "reused" } as const;
      }
      return { kind: "unknown" } as const;
    }
    // Each failed check throws, which rolls the rotation back.
    if (row.client_pk !== client.id) throw invalidGrant("The refresh token was issued to another client");
    if (row.expires_at.getTime() <= now.getTime()) throw invalidGrant("The refresh token has expired");
    const grant = await findGrantUser(trx, row.grant_id);
    if (grant.revoked_at !== null) throw invalidGrant("The authorization of this refresh token has been revoked");
    if (grant.grant_type !== "authorization_code" || grant.user_id === null || grant.disabled_at !== null) {
      throw invalidGrant("The user who approved this authorization can no longer sign in");
    }

    let accessScopes = row.scopes;
    if (request.scope !== undefined) {
      const { scopes: known, unknown } = parseScopeList(request.scope);
      const wider = known.filter((scope) => !row.scopes.includes(scope));
      if (unknown.length > 0 || wider.length > 0 || known.length === 0) {
        throw invalidScope(`Scope wider than the refresh token's: ${[...unknown, ...wider].join(" ") || "(empty)"}`);
      }
      accessScopes = [...known];
    }
    // The client may have lost scopes since the user approved.
    const stillAllowed = (scopes: ReadonlyArray<string>) =>
      scopes.filter((scope) => client.allowed_scopes.includes(scope));
    const scopes = stillAllowed(accessScopes);
    if (scopes.length === 0) throw invalidScope("None of the requested scopes is still allowed for this client");

    const tokens = await issueTokens(trx, {
      companyId: client.company_id,
      clientPk: client.id,
      grantId: row.grant_id,
      scopes,
      withRefreshToken: true,
      refreshScopes: stillAllowed(row.scopes),
      notAfter: new Date(grant.created_at.getTime() + AUTHORIZATION_MAX_SECONDS * 1000),
      now,
    });
    return { kind: "issued", tokens } as const;
  });

  if (outcome.kind === "reused") {
    throw invalidGrant("The refresh token was already used; every token of its authorization has been revoked");
  }
  if (outcome.kind === "unknown") throw invalidGrant("Unknown or revoked refresh token");
  return outcome.tokens;
};
