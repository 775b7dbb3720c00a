/**
 * The `Idempotency-Key` records of the creating operations
 * (docs/decisions/0024). A key is claimed by the first statement of the
 * write's transaction and given its answer by the last, so the key and the
 * write it guarded commit together or not at all; a concurrent request with
 * the same key waits on the primary key until the first commits (then finds
 * its answer) or rolls back (then claims the key itself).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../schema.ts";

/** A request that sent a key: what makes a later one with the same key "the same request". */
export interface KeyedRequest {
  readonly companyId: number;
  readonly key: string;
  /** The contract's operationId. */
  readonly operation: string;
  readonly requestSha256: Buffer;
}

/** The answer recorded under a key. */
export interface RecordedAnswer {
  readonly operation: string;
  readonly requestSha256: Buffer;
  readonly status: number;
  /** The answer's JSON text, as it was sent. */
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** The answer recorded under `key` that has not expired at `now`, if any. */
export const findRecordedAnswer = async (
  db: Kysely<Database>,
  companyId: number,
  key: string,
  now: Date,
): Promise<RecordedAnswer | undefined> => {
  const row = await db
    .selectFrom("idempotency_keys")
    .select(["operation", "request_sha256", "response_status", "response_body", "response_headers"])
    .where("company_id", "=", companyId)
    .where("idempotency_key", "=", key)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  if (row === undefined || row.response_status === null || row.response_body === null) return undefined;
  return {
    operation: row.operation,
    requestSha256: row.request_sha256,
    status: row.response_status,
    body: row.response_body,
    headers: row.response_headers ?? {},
  };
};

/**
 * Claims `request.key` for the calling transaction, until `expiresAt`. False
 * when another transaction committed a live record under the key (this one
 * waited for it): the caller then answers from that record. An expired
 * record is taken over.
 */
export const claimIdempotencyKey = async (
  trx: Kysely<Database>,
  request: KeyedRequest,
  now: Date,
  expiresAt: Date,
): Promise<boolean> => {
  const { rows } = await sql<{ claimed: boolean }>`
    insert into idempotency_keys (company_id, idempotency_key, operation, request_sha256, created_at, expires_at)
    values (${request.companyId}, ${request.key}, ${request.operation}, ${request.requestSha256},
      ${now.toISOString()}::timestamptz, ${expiresAt.toISOString()}::timestamptz)
    on conflict (company_id, idempotency_key) do update
    set operation = excluded.operation, request_sha256 = excluded.request_sha256, response_status = null,
      response_body = null, response_headers = null, created_at = excluded.created_at, expires_at = excluded.expires_at
    where idempotency_keys.expires_at <= excluded.created_at
    returning true as claimed
  `.execute(trx);
  return rows.length === 1;
};

/** Records the answer of the request that claimed `key` (in the claiming transaction). */
export const recordAnswer = async (
  trx: Kysely<Database>,
  companyId: number,
  key: string,
  answer: { readonly status: number; readonly body: string; readonly headers: Readonly<Record<string, string>> },
): Promise<void> => {
  await trx
    .updateTable("idempotency_keys")
    .set({
      response_status: answer.status,
      response_body: answer.body,
      response_headers: JSON.stringify(answer.headers),
    })
    .where("company_id", "=", companyId)
    .where("idempotency_key", "=", key)
    .execute();
};

/**
 * Deletes up to `limit` records expired at `now`, all of one company
 * (DESIGN.md 6), in one statement; a record another transaction holds (a
 * claim taking it over) is skipped. Returns how many went: fewer than
 * `limit` may still leave other companies' records for the next call.
 */
export const purgeIdempotencyKeysBatch = async (
  db: Kysely<Database>,
  batch: { readonly now: Date; readonly limit: number },
): Promise<number> => {
  const now = sql`${batch.now.toISOString()}::timestamptz`;
  const { rows } = await sql<{ deleted: number }>`
    with company as (
      select company_id from idempotency_keys where expires_at <= ${now}
      limit 1
      for update skip locked
    ), doomed as (
      select company_id, idempotency_key from idempotency_keys
      where company_id = (select company_id from company) and expires_at <= ${now}
      limit ${batch.limit}
      for update skip locked
    ), deleted as (
      delete from idempotency_keys k using doomed
      where k.company_id = doomed.company_id and k.idempotency_key = doomed.idempotency_key
      returning 1
    )
    select count(*)::int4 as deleted from deleted
  `.execute(db);
  return rows[0]?.deleted ?? 0;
};
