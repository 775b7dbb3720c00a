/** A company's OAuth clients, oldest first, revoked ones included; never a secret hash. */
import type { Db } from "../executor.ts";

export const listClients = (db: Db, companyId: number) =>
  db
    .selectFrom("oauth_clients")
    .select(["client_id", "name", "allowed_scopes", "redirect_uris", "created_at", "revoked_at"])
    .where("company_id", "=", companyId)
    .orderBy("id")
    .execute();
