/** Stores the hash of a new refresh token of a grant. */
import type { Db } from "../executor.ts";
import type { NewToken } from "./insert-access-token.ts";

export const insertRefreshToken = async (db: Db, token: NewToken): Promise<void> => {
  await db
    .insertInto("oauth_refresh_tokens")
    .values({
      company_id: token.companyId,
      client_pk: token.clientPk,
      grant_id: token.grantId,
      token_hash: token.tokenHash,
      scopes: [...token.scopes],
      expires_at: token.expiresAt,
      created_at: token.now,
    })
    .execute();
};
