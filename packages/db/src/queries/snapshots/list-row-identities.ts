/**
 * The identity fields of every stored row of a snapshot, in snapshot order
 * with snapshot-wide row indexes, for the rules that span chunks. Only the
 * two identity keys leave the database, not the rows (up to a million).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";

export interface RowIdentityFields {
  readonly row_index: number;
  /** `null` when absent or JSON null (the domain reads both as absent). */
  readonly internal_id: string | null;
  readonly invoice_reference: string | null;
}

export const listRowIdentityFields = async (
  db: Kysely<Database>,
  snapshot: { readonly id: number; readonly companyId: number },
): Promise<ReadonlyArray<RowIdentityFields>> =>
  (
    await sql<RowIdentityFields>`
      select (c.first_row + e.ordinality - 1)::int as row_index,
             e.value ->> 'internal_id' as internal_id,
             e.value ->> 'invoice_reference' as invoice_reference
      from (
        select chunk_index, body, sum(row_count) over (order by chunk_index) - row_count as first_row
        from snapshot_chunks
        where snapshot_id = ${snapshot.id} and company_id = ${snapshot.companyId}
      ) c
      cross join lateral json_array_elements((c.body::json) -> 'rows') with ordinality as e(value, ordinality)
      order by c.chunk_index, e.ordinality`.execute(db)
  ).rows;
