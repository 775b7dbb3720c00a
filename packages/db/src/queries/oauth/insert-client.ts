/** Registers an OAuth client of a company with the hash of its secret (hex). */
import type { Db } from "../executor.ts";

export const insertClient = (
  db: Db,
  client: {
    readonly companyId: number;
    readonly clientId: string;
    readonly name: string;
    readonly secretHash: string;
    readonly scopes: ReadonlyArray<string>;
    readonly redirectUris: ReadonlyArray<string>;
  },
) =>
  db
    .insertInto("oauth_clients")
    .values({
      company_id: client.companyId,
      client_id: client.clientId,
      name: client.name,
      secret_hash: client.secretHash,
      allowed_scopes: [...client.scopes],
      redirect_uris: [...client.redirectUris],
    })
    .returning(["id", "client_id", "name", "allowed_scopes", "redirect_uris", "created_at"])
    .executeTakeFirstOrThrow();
