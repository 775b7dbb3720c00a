/**
 * Token revocation (RFC 7009; docs/decisions/0205). Only the authenticated
 * client's own tokens are affected; anything else is silently a no-op, so the
 * answer never tells whether a token exists.
 */
import type { OauthClient } from "@dc/db";
import type { AppServices } from "../services.ts";
import { revokeGrant } from "./grants.ts";
import { hashSecret } from "./secrets.ts";

/**
 * Revokes `token` if it is one of `client`'s: a refresh token revokes its
 * whole grant (RFC 7009 2.1: the access tokens of the same authorization go
 * too); an access token revokes only itself.
 */
export const revokeClientToken = async (services: AppServices, client: OauthClient, token: string): Promise<void> => {
  if (token.length > 512) return;
  const tokenHash = hashSecret(token);
  const now = services.clock.now();
  const refresh = await services.db
    .selectFrom("oauth_refresh_tokens")
    .select("grant_id")
    .where("token_hash", "=", tokenHash)
    .where("client_pk", "=", client.id)
    .executeTakeFirst();
  if (refresh !== undefined) {
    await revokeGrant(services.db, refresh.grant_id, now);
    return;
  }
  await services.db
    .updateTable("oauth_access_tokens")
    .set({ revoked_at: now })
    .where("token_hash", "=", tokenHash)
    .where("client_pk", "=", client.id)
    .where("revoked_at", "is", null)
    .execute();
};
