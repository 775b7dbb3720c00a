/**
 * Token revocation (RFC 7009; docs/decisions/0205). Only the authenticated
 * client's own tokens are affected; anything else is silently a no-op, so the
 * answer never tells whether a token exists.
 */
import { findRefreshTokenGrant, type OauthClient, revokeAccessToken, revokeGrant } from "@dc/db";
import type { AppServices } from "../services.ts";
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
  const grantId = await findRefreshTokenGrant(services.db, client.id, tokenHash);
  if (grantId !== undefined) {
    await revokeGrant(services.db, grantId, now);
    return;
  }
  await revokeAccessToken(services.db, client.id, tokenHash, now);
};
