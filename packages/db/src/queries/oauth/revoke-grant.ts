/**
 * Revokes a grant, and so every token issued from it: bearer authentication
 * and the refresh grant both join on `oauth_grants.revoked_at`. Idempotent:
 * an already revoked grant keeps its first revocation time.
 */
import type { Db } from "../executor.ts";

export const revokeGrant = async (db: Db, grantId: number, now: Date): Promise<void> => {
  await db
    .updateTable("oauth_grants")
    .set({ revoked_at: now })
    .where("id", "=", grantId)
    .where("revoked_at", "is", null)
    .execute();
};
