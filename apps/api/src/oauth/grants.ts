/**
 * A grant ties together every token issued from one authorization. Revoking
 * it ends them all at once: bearer authentication and the refresh grant both
 * join on `oauth_grants.revoked_at`.
 */
import type { Database } from "@dc/db";
import type { Kysely, Transaction } from "kysely";

/** Revokes a grant (idempotent: an already revoked grant keeps its first revocation time). */
export const revokeGrant = async (
  db: Kysely<Database> | Transaction<Database>,
  grantId: number,
  now: Date,
): Promise<void> => {
  await db
    .updateTable("oauth_grants")
    .set({ revoked_at: now })
    .where("id", "=", grantId)
    .where("revoked_at", "is", null)
    .execute();
};
