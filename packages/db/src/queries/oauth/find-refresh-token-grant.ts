/** The grant of a client's refresh token, by the token's hash, or undefined when the client has no such token. */
import type { Db } from "../executor.ts";

export const findRefreshTokenGrant = async (db: Db, clientPk: number, tokenHash: Buffer): Promise<number | undefined> =>
  (
    await db
      .selectFrom("oauth_refresh_tokens")
      .select("grant_id")
      .where("token_hash", "=", tokenHash)
      .where("client_pk", "=", clientPk)
      .executeTakeFirst()
  )?.grant_id;
