/** A refresh token's grant and rotation time, by its hash, or undefined when there is no such token. */
import type { Db } from "../executor.ts";

export const findRefreshTokenRotation = (db: Db, tokenHash: Buffer) =>
  db
    .selectFrom("oauth_refresh_tokens")
    .select(["grant_id", "rotated_at"])
    .where("token_hash", "=", tokenHash)
    .executeTakeFirst();
