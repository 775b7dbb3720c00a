/**
 * The rules that span chunks, checked at finalization (contract 4.2 rule 7):
 * one effective identity per row, one row per invoice reference, one stream.
 * Every stored row already passed the per-row rules at upload, so only its
 * identity fields are read back (not the rows) and fed to the domain's
 * `Snapshot.checkAcrossRows`.
 */
import { MAX_LISTED_ISSUES, type SnapshotFailure, snapshotMessages } from "@dc/contract";
import type { RowIdentityFields } from "@dc/db";
import { Snapshot } from "@dc/domain";

/**
 * `checkAcrossRows` reads only `rowIndex`, `identity`, `stream` and
 * `invoiceReference` of a row; the other fields of these rows are neutral
 * placeholders (the domain has no function over identities alone).
 */
const identityRow = (fields: RowIdentityFields): Snapshot.ValidRow | undefined => {
  const identity = Snapshot.effectiveIdentity({
    ...(fields.internal_id === null ? {} : { internal_id: fields.internal_id }),
    ...(fields.invoice_reference === null ? {} : { invoice_reference: fields.invoice_reference }),
  });
  if (identity === undefined) return undefined;
  return {
    rowIndex: fields.row_index,
    identity,
    stream: Snapshot.streamOf(identity),
    internalId: fields.internal_id,
    invoiceReference: fields.invoice_reference,
    remainingMinor: 0,
    currency: "",
    firstname: null,
    lastname: null,
    email: null,
    phone: null,
    paymentPlan: null,
  };
};

/** Errors of the rules across all rows of a snapshot, by row index. */
export const crossChunkErrors = (rows: ReadonlyArray<RowIdentityFields>): Array<Snapshot.RowError> => {
  const identified: Array<Snapshot.ValidRow> = [];
  const errors: Array<Snapshot.RowError> = [];
  for (const fields of rows) {
    const row = identityRow(fields);
    // Unreachable for rows validated at upload; kept so a bad row can never pass silently.
    if (row === undefined) {
      errors.push({
        row_index: fields.row_index,
        field: "internal_id",
        reason: "internal_id or invoice_reference is required",
      });
    } else identified.push(row);
  }
  return [...errors, ...Snapshot.checkAcrossRows(identified)].sort((a, b) => a.row_index - b.row_index);
};

/** The `failure` recorded on a snapshot whose rows break a cross-chunk rule. */
export const invalidRowsFailure = (errors: ReadonlyArray<Snapshot.RowError>): SnapshotFailure => ({
  code: "invalid_snapshot_row",
  message: snapshotMessages.invalidRows,
  errors: errors.slice(0, MAX_LISTED_ISSUES),
  error_count: errors.length,
  errors_omitted: Math.max(0, errors.length - MAX_LISTED_ISSUES),
});
