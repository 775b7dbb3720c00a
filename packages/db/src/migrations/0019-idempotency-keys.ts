/**
 * The `Idempotency-Key` of the creating operations (docs/decisions/0024):
 * one row per key a company sent, written in the transaction of the write it
 * guarded, holding a digest of the request and the answer given, so a retry
 * gets that answer again and a concurrent duplicate waits on the primary key
 * for the first to commit. Keyed by company first (DESIGN.md 6), its expiry
 * index too: the purge deletes one company's expired keys at a time
 * (`idempotency_keys_expiry_idx`), and finds the companies that have some by
 * skipping through the index's leading column.
 *
 * The answer columns are null only inside the claiming transaction, between
 * the claim and the write's end: no other transaction ever sees them null.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    create table idempotency_keys (
      company_id bigint not null references companies (id) on delete cascade,
      idempotency_key text not null,
      operation text not null,
      request_sha256 bytea not null,
      response_status int2,
      response_body text,
      response_headers jsonb,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      primary key (company_id, idempotency_key)
    )
  `.execute(db);
  await sql`create index idempotency_keys_expiry_idx on idempotency_keys (company_id, expires_at)`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop table if exists idempotency_keys`.execute(db);
};
