import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";

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
