/** An OAuth client that is not revoked, by its public client_id, or undefined. */
import type { OauthClient } from "../../schema.ts";
import type { Db } from "../executor.ts";

export const findActiveClient = (db: Db, clientId: string): Promise<OauthClient | undefined> =>
  db
    .selectFrom("oauth_clients")
    .selectAll()
    .where("client_id", "=", clientId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
