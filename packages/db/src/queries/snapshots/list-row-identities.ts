/**
 * The identity fields of every stored row of a snapshot, in snapshot order
 * with snapshot-wide row indexes, for the rules that span chunks. Only the
 * two identity arrays each chunk was stored with leave the database, not
 * the rows (up to a million). Only an unsettled snapshot is asked for: the
 * retention purge clears the arrays of settled ones (docs/decisions/0021).
 */
import type { Kysely } from "kysely";
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
): Promise<ReadonlyArray<RowIdentityFields>> => {
  const chunks = await db
    .selectFrom("snapshot_chunks")
    .select(["internal_ids", "invoice_references"])
    .where("snapshot_id", "=", snapshot.id)
    .where("company_id", "=", snapshot.companyId)
    .orderBy("chunk_index")
    .execute();
  const fields: Array<RowIdentityFields> = [];
  for (const { internal_ids: internalIds, invoice_references: invoiceReferences } of chunks) {
    if (internalIds === null || invoiceReferences === null) {
      throw new Error(`snapshot ${snapshot.id} has a purged chunk: its rows are no longer stored`);
    }
    internalIds.forEach((internalId, i) =>
      fields.push({ row_index: fields.length, internal_id: internalId, invoice_reference: invoiceReferences[i] ?? null }),
    );
  }
  return fields;
};
