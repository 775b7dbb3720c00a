/**
 * The rules that span chunks, checked at finalization (contract 4.2 rule 7):
 * one effective identity per row, one row per invoice reference, one stream.
 * PostgreSQL checks them over the stored identity arrays (`findCrossRowErrors`
 * of @dc/db) and returns the first errors and their count; this module turns
 * them into the `failure` the snapshot records.
 */
import { MAX_LISTED_ISSUES, type SnapshotFailure, snapshotMessages } from "@dc/contract";
import type { CrossRowErrors } from "@dc/db";

/** The `failure` recorded on a snapshot whose rows break a cross-chunk rule. */
export const invalidRowsFailure = ({ errors, count }: CrossRowErrors): SnapshotFailure => ({
  code: "invalid_snapshot_row",
  message: snapshotMessages.invalidRows,
  errors: errors.slice(0, MAX_LISTED_ISSUES),
  error_count: count,
  errors_omitted: Math.max(0, count - MAX_LISTED_ISSUES),
});
