/** Administration of OAuth clients: the secret exists in clear only in the creation result. */
import { isScope, type Scope } from "@dc/contract";
import { type Db, insertClient } from "@dc/db";
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

export const createClient = async (db: Db, client: NewClient) => {
  const clientId = newClientId();
  const clientSecret = newSecret(secretPrefixes.clientSecret);
  const row = await insertClient(db, {
    companyId: client.companyId,
    clientId,
    name: client.name,
    secretHash: hashSecret(clientSecret).toString("hex"),
    scopes: client.scopes,
    redirectUris: client.redirectUris,
  });
  return { ...row, client_secret: clientSecret };
};

export { listClients, revokeClient } from "@dc/db";
