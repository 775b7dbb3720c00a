/**
 * Marks an unconsumed authorization code consumed, by its hash, and returns
 * it; undefined when it is unknown or already consumed. The update is
 * conditional, so of concurrent redemptions exactly one gets the row.
 */
import type { DbTransaction } from "../executor.ts";

export const consumeAuthorizationCode = (trx: DbTransaction, codeHash: Buffer, now: Date) =>
  trx
    .updateTable("oauth_authorization_codes")
    .set({ consumed_at: now })
    .where("code_hash", "=", codeHash)
    .where("consumed_at", "is", null)
    .returningAll()
    .executeTakeFirst();
