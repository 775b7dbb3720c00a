/**
 * Bearer-token authentication of the external API: the token's SHA-256 is
 * looked up with its client and grant in one indexed query; a token that is
 * expired, revoked, of a revoked client or of a revoked grant is refused.
 */
import type { Scope } from "@dc/contract";
import { sql } from "kysely";
import { Unauthorized } from "../http/api-error.ts";
import { hashSecret } from "../oauth/secrets.ts";
import type { AppServices } from "../services.ts";

/** Who is calling: the company of the token, its client and its scopes. */
export interface Principal {
  readonly companyId: number;
  readonly clientPk: number;
  readonly grantId: number;
  readonly scopes: ReadonlySet<Scope>;
}

const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;

/** The token of an `Authorization: Bearer` header, or undefined when absent or malformed. */
export const bearerToken = (header: string | undefined): string | undefined => BEARER.exec(header ?? "")?.[1];

/** Resolves the principal of a request's Authorization header, or throws Unauthorized. */
export const authenticate = async (services: AppServices, header: string | undefined): Promise<Principal> => {
  const token = bearerToken(header);
  if (token === undefined || token.length > 512) throw new Unauthorized();
  const row = await services.db
    .selectFrom("oauth_access_tokens as t")
    .innerJoin("oauth_clients as c", "c.id", "t.client_pk")
    .innerJoin("oauth_grants as g", "g.id", "t.grant_id")
    .select(["t.company_id", "t.client_pk", "t.grant_id", "t.scopes"])
    .where("t.token_hash", "=", hashSecret(token))
    .where("t.revoked_at", "is", null)
    .where("c.revoked_at", "is", null)
    .where("g.revoked_at", "is", null)
    .where("t.expires_at", ">", sql<Date>`${services.clock.now()}::timestamptz`)
    .executeTakeFirst();
  if (row === undefined) throw new Unauthorized();
  return {
    companyId: row.company_id,
    clientPk: row.client_pk,
    grantId: row.grant_id,
    scopes: new Set(row.scopes as Scope[]),
  };
};
