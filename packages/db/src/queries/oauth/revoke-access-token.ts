/** Revokes a client's access token by its hash; nothing happens when the client has no such live token. */
import type { Db } from "../executor.ts";

export const revokeAccessToken = async (db: Db, clientPk: number, tokenHash: Buffer, now: Date): Promise<void> => {
  await db
    .updateTable("oauth_access_tokens")
    .set({ revoked_at: now })
    .where("token_hash", "=", tokenHash)
    .where("client_pk", "=", clientPk)
    .where("revoked_at", "is", null)
    .execute();
};
