/** Revokes a live client, so its tokens stop working at once (authentication joins on the client); undefined when none. */
import type { Db } from "../executor.ts";

export const revokeClient = (db: Db, clientId: string, now: Date) =>
  db
    .updateTable("oauth_clients")
    .set({ revoked_at: now })
    .where("client_id", "=", clientId)
    .where("revoked_at", "is", null)
    .returning(["client_id", "revoked_at"])
    .executeTakeFirst();
