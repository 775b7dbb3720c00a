/**
 * The `Idempotency-Key` records of the creating operations
 * (docs/decisions/0024). A key is claimed by the first statement of the
 * write's transaction and given its answer by the last, so the key and the
 * write it guarded commit together or not at all; a concurrent request with
 * the same key waits on the primary key until the first commits (then finds
 * its answer) or rolls back (then claims the key itself).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import type { KeyedRequest } from "./keyed-request.ts";

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
