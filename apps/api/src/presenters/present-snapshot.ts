/**
 * The snapshot acknowledgement (contract 2.8) that every snapshot operation
 * answers with, built from a `snapshots` row. The worker's `counts`,
 * `failure` and `warnings` are decoded with the contract's schemas
 * (docs/decisions/0304), so a row breaking the agreed shapes fails loudly
 * instead of reaching a client.
 */
import { API_PREFIX, type SnapshotAcknowledgement, SnapshotCounts, SnapshotFailure, SnapshotWarning } from "@dc/contract";
import type { Snapshot } from "@dc/db";
import { Schema } from "effect";

/** The status resource's path, also `status_url` and `Location`. */
export const snapshotStatusPath = (apiReference: string, snapshotReference: string): string =>
  `${API_PREFIX}/campaigns/${encodeURIComponent(apiReference)}/snapshots/${encodeURIComponent(snapshotReference)}`;

const decodeCounts = Schema.decodeUnknownSync(Schema.NullOr(SnapshotCounts));
const decodeFailure = Schema.decodeUnknownSync(Schema.NullOr(SnapshotFailure));
const decodeWarnings = Schema.decodeUnknownSync(Schema.NullOr(Schema.Array(SnapshotWarning)));

/** The acknowledgement of a snapshot; the warning keys appear once it is completed. */
export const presentSnapshot = (snapshot: Snapshot, apiReference: string): SnapshotAcknowledgement => ({
  api_reference: apiReference,
  snapshot_reference: snapshot.snapshot_reference,
  delivery_mode: snapshot.delivery_mode,
  status: snapshot.status,
  core_applied: snapshot.core_applied,
  // Undeclared (opened by its chunk 0, docs/decisions/0580): the rows received are the rows declared so far.
  expected_row_count: snapshot.expected_row_count ?? snapshot.received_row_count,
  received_row_count: snapshot.received_row_count,
  received_chunk_count: snapshot.received_chunk_count,
  next_chunk_index: snapshot.next_chunk_index,
  counts: decodeCounts(snapshot.counts),
  failure: decodeFailure(snapshot.failure),
  created_at: snapshot.created_at,
  updated_at: snapshot.updated_at,
  status_url: snapshotStatusPath(apiReference, snapshot.snapshot_reference),
  ...(snapshot.status === "completed"
    ? {
        warnings: decodeWarnings(snapshot.warnings) ?? [],
        warning_count: snapshot.warning_count,
        warnings_omitted: snapshot.warnings_omitted,
      }
    : {}),
});
