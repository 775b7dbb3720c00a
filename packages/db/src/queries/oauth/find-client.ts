/** An OAuth client by its public client_id, revoked or not, or undefined. */
import type { OauthClient } from "../../schema.ts";
import type { Db } from "../executor.ts";

export const findClient = (db: Db, clientId: string): Promise<OauthClient | undefined> =>
  db.selectFrom("oauth_clients").selectAll().where("client_id", "=", clientId).executeTakeFirst();
