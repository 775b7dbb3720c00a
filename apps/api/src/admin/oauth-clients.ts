/** Administration of OAuth clients: the secret exists in clear only in the creation result. */
import { isScope, type Scope } from "@dc/contract";
import type { Database } from "@dc/db";
import type { Kysely } from "kysely";
import { hashSecret, newClientId, newSecret, secretPrefixes } from "../oauth/secrets.ts";

export interface NewClient {
  readonly companyId: number;
  readonly name: string;
  readonly scopes: ReadonlyArray<Scope>;
  readonly redirectUris: ReadonlyArray<string>;
}

/** Why a redirect URI cannot be registered, or undefined when it can (RFC 6749 3.1.2, RFC 9700 2.1). */
export const redirectUriProblem = (uri: string): string | undefined => {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return `not an absolute URL: ${uri}`;
  }
  // Any `#` of a URL that parsed starts its fragment; `hash` is "" for an empty one, which is a fragment all the same.
  if (uri.includes("#")) return `a redirect URI may not have a fragment: ${uri}`;
  const loopback = parsed.hostname === "localhost" || parsed.hostname === "127.0.0.1" || parsed.hostname === "[::1]";
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && loopback)) {
    return `a redirect URI must use https (http only for loopback): ${uri}`;
  }
  return undefined;
};

export const parseScopes = (value: string): { scopes: Scope[]; unknown: string[] } => {
  const words = value.split(/[\s,]+/).filter((word) => word !== "");
  return { scopes: [...new Set(words.filter(isScope))], unknown: words.filter((word) => !isScope(word)) };
};

export const createClient = async (db: Kysely<Database>, client: NewClient) => {
  const clientId = newClientId();
  const clientSecret = newSecret(secretPrefixes.clientSecret);
  const row = await db
    .insertInto("oauth_clients")
    .values({
      company_id: client.companyId,
      client_id: clientId,
      name: client.name,
      secret_hash: hashSecret(clientSecret).toString("hex"),
      allowed_scopes: [...client.scopes],
      redirect_uris: [...client.redirectUris],
    })
    .returning(["id", "client_id", "name", "allowed_scopes", "redirect_uris", "created_at"])
    .executeTakeFirstOrThrow();
  return { ...row, client_secret: clientSecret };
};

export const listClients = (db: Kysely<Database>, companyId: number) =>
  db
    .selectFrom("oauth_clients")
    .select(["client_id", "name", "allowed_scopes", "redirect_uris", "created_at", "revoked_at"])
    .where("company_id", "=", companyId)
    .orderBy("id")
    .execute();

/** Revokes a client: its tokens stop working at once (authentication joins on the client). */
export const revokeClient = async (db: Kysely<Database>, clientId: string, now: Date) =>
  db
    .updateTable("oauth_clients")
    .set({ revoked_at: now })
    .where("client_id", "=", clientId)
    .where("revoked_at", "is", null)
    .returning(["client_id", "revoked_at"])
    .executeTakeFirst();
