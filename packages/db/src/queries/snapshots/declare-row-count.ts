/**
 * Declares the row count of a staged snapshot opened by its chunk 0 without
 * one (docs/decisions/0580). Conditional: the snapshot must still be
 * `uploading`, undeclared, and hold no more rows than the count, so of two
 * concurrent declarations one wins and the other compares with it.
 */
import type { Kysely } from "kysely";
import type { Database, Snapshot } from "../../schema.ts";

export const declareRowCount = (
  db: Kysely<Database>,
  snapshot: { readonly id: number; readonly companyId: number; readonly expectedRowCount: number; readonly now: Date },
): Promise<Snapshot | undefined> =>
  db
    .updateTable("snapshots")
    .set({ expected_row_count: snapshot.expectedRowCount, updated_at: snapshot.now })
    .where("company_id", "=", snapshot.companyId)
    .where("id", "=", snapshot.id)
    .where("status", "=", "uploading")
    .where("expected_row_count", "is", null)
    .where("received_row_count", "<=", snapshot.expectedRowCount)
    .returningAll()
    .executeTakeFirst();
