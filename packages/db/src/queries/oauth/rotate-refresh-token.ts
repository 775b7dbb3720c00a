/**
 * Marks a live refresh token rotated, by its hash, and returns it; undefined
 * when it is unknown, revoked or already rotated. The update is conditional,
 * so of concurrent refreshes with one token exactly one gets the row.
 */
import type { DbTransaction } from "../executor.ts";

export const rotateRefreshToken = (trx: DbTransaction, tokenHash: Buffer, now: Date) =>
  trx
    .updateTable("oauth_refresh_tokens")
    .set({ rotated_at: now })
    .where("token_hash", "=", tokenHash)
    .where("rotated_at", "is", null)
    .where("revoked_at", "is", null)
    .returningAll()
    .executeTakeFirst();
