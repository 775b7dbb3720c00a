/**
 * Rows for OAuth clean-up tests: one company with a user and a client, and
 * helpers to add grants, tokens, codes and rate-limit counters at chosen times.
 */
import { randomBytes } from "node:crypto";
import type { Database } from "@dc/db";
import type { Kysely } from "kysely";

export interface OauthOwner {
  readonly companyId: number;
  readonly userId: number;
  readonly clientPk: number;
}

const HOUR = 60 * 60 * 1000;
/** `instant` moved by `hours` (negative: earlier). */
export const hoursFrom = (instant: Date, hours: number): Date => new Date(instant.getTime() + hours * HOUR);

export const insertOwner = async (db: Kysely<Database>): Promise<OauthOwner> => {
  const company = await db.insertInto("companies").values({ name: "Acme" }).returning("id").executeTakeFirstOrThrow();
  const user = await db
    .insertInto("users")
    .values({ company_id: company.id, email: `u-${randomBytes(4).toString("hex")}@acme.test`, password_hash: "x" })
    .returning("id")
    .executeTakeFirstOrThrow();
  const client = await db
    .insertInto("oauth_clients")
    .values({
      company_id: company.id,
      client_id: `client-${randomBytes(4).toString("hex")}`,
      name: "Acme integration",
      secret_hash: "not-a-real-hash",
      allowed_scopes: ["debts:read"],
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { companyId: company.id, userId: user.id, clientPk: client.id };
};

export const insertGrant = async (
  db: Kysely<Database>,
  owner: OauthOwner,
  createdAt: Date,
  revokedAt: Date | null = null,
): Promise<number> => {
  const row = await db
    .insertInto("oauth_grants")
    .values({
      company_id: owner.companyId,
      client_pk: owner.clientPk,
      grant_type: "client_credentials",
      scopes: ["debts:read"],
      created_at: createdAt,
      revoked_at: revokedAt,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
};

export const insertToken = async (
  db: Kysely<Database>,
  table: "oauth_access_tokens" | "oauth_refresh_tokens",
  owner: OauthOwner,
  grantId: number,
  expiresAt: Date,
): Promise<number> => {
  const row = await db
    .insertInto(table)
    .values({
      company_id: owner.companyId,
      client_pk: owner.clientPk,
      grant_id: grantId,
      token_hash: randomBytes(32),
      scopes: ["debts:read"],
      expires_at: expiresAt,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
};

export const insertCode = async (
  db: Kysely<Database>,
  owner: OauthOwner,
  grantId: number | null,
  expiresAt: Date,
): Promise<number> => {
  const row = await db
    .insertInto("oauth_authorization_codes")
    .values({
      company_id: owner.companyId,
      client_pk: owner.clientPk,
      user_id: owner.userId,
      code_hash: randomBytes(32),
      redirect_uri: "https://acme.test/callback",
      scopes: ["debts:read"],
      grant_id: grantId,
      expires_at: expiresAt,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
};

export const insertCounter = async (db: Kysely<Database>, key: string, expiresAt: Date): Promise<void> => {
  await db
    .insertInto("rate_limit_counters")
    .values({ key, window_start: hoursFrom(expiresAt, -1), count: 3, expires_at: expiresAt })
    .execute();
};

/** An answered Idempotency-Key record of `companyId`, expiring at `expiresAt` (docs/decisions/0024). */
export const insertIdempotencyKey = async (
  db: Kysely<Database>,
  companyId: number,
  key: string,
  expiresAt: Date,
): Promise<void> => {
  await db
    .insertInto("idempotency_keys")
    .values({
      company_id: companyId,
      idempotency_key: key,
      operation: "createDebt",
      request_sha256: Buffer.alloc(32),
      response_status: 201,
      response_body: "{}",
      response_headers: "{}",
      created_at: hoursFrom(expiresAt, -24),
      expires_at: expiresAt,
    })
    .execute();
};

/** Sorted ids left in an id-keyed table. */
export const remainingIds = async (
  db: Kysely<Database>,
  table: "oauth_grants" | "oauth_access_tokens" | "oauth_refresh_tokens" | "oauth_authorization_codes",
): Promise<number[]> => {
  const rows = await db.selectFrom(table).select("id").orderBy("id").execute();
  return rows.map((row) => row.id);
};
