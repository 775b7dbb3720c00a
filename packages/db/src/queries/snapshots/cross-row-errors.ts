// TEMPORARY stand-in until the SQL version lands (helper h-cross).
import { Snapshot } from "@dc/domain";
import type { Kysely } from "kysely";
import type { Database } from "../../schema.ts";
import { listRowIdentityFields } from "./list-row-identities.ts";
import { MAX_REPORTED, type SnapshotRowKey } from "./mark-snapshot.ts";

export const findCrossRowErrors = async (
  db: Kysely<Database>,
  snapshot: SnapshotRowKey,
  limit: number = MAX_REPORTED,
): Promise<{ errors: ReadonlyArray<Snapshot.RowError>; count: number }> => {
  const fields = await listRowIdentityFields(db, snapshot);
  const rows: Array<Snapshot.ValidRow> = [];
  const errors: Array<Snapshot.RowError> = [];
  for (const f of fields) {
    const identity = Snapshot.effectiveIdentity({
      ...(f.internal_id === null ? {} : { internal_id: f.internal_id }),
      ...(f.invoice_reference === null ? {} : { invoice_reference: f.invoice_reference }),
    });
    if (identity === undefined) {
      errors.push({ row_index: f.row_index, field: "internal_id", reason: "internal_id or invoice_reference is required" });
      continue;
    }
    rows.push({ rowIndex: f.row_index, identity, stream: Snapshot.streamOf(identity), internalId: f.internal_id, invoiceReference: f.invoice_reference, remainingMinor: 0, currency: "", firstname: null, lastname: null, email: null, phone: null, paymentPlan: null });
  }
  const all = [...errors, ...Snapshot.checkAcrossRows(rows)].sort((a, b) => a.row_index - b.row_index);
  return { errors: all.slice(0, limit), count: all.length };
};
