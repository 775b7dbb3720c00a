/**
 * The snapshot acknowledgement (contract 2.8) that every snapshot operation
 * answers with, built from a `snapshots` row, and the reply carrying it with
 * `Location`. The worker's `counts`, `failure` and `warnings` are decoded with
 * the contract's schemas (docs/decisions/0304), so a row breaking the agreed
 * shapes fails loudly instead of reaching a client.
 */
import {
  API_PREFIX,
  type SnapshotAcknowledgement,
  SnapshotCounts,
  SnapshotFailure,
  SnapshotWarning,
} from "@dc/contract";
import type { Snapshot } from "@dc/db";
import { Schema } from "effect";
import type { Reply } from "../../http/handler.ts";

/** The status resource's path, also `status_url` and `Location`. */
export const snapshotStatusPath = (apiReference: string, snapshotReference: string): string =>
  `${API_PREFIX}/campaigns/${encodeURIComponent(apiReference)}/snapshots/${encodeURIComponent(snapshotReference)}`;

const decodeCounts = Schema.decodeUnknownSync(Schema.NullOr(SnapshotCounts));
const decodeFailure = Schema.decodeUnknownSync(Schema.NullOr(SnapshotFailure));
const decodeWarnings = Schema.decodeUnknownSync(Schema.NullOr(Schema.Array(SnapshotWarning)));

/** Completed or failed: a retry gets 200 with this result instead of 202. */
export const isSettled = (snapshot: Pick<Snapshot, "status">): boolean =>
  snapshot.status === "completed" || snapshot.status === "failed";

/** Accepted and not yet settled: the worker owes its outcome (a staged snapshot still `uploading` waits for the integration). */
export const awaitsWorker = (snapshot: Pick<Snapshot, "status">): boolean =>
  snapshot.status === "pending" || snapshot.status === "processing";

/** The acknowledgement of a snapshot; the warning keys appear once it is completed. */
export const acknowledgement = (snapshot: Snapshot, apiReference: string): SnapshotAcknowledgement => ({
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

/**
 * The success reply of a snapshot operation. `replay` marks an identical
 * retry of a decision already taken: it is not counted against the rate
 * limit (docs/decisions/0305).
 */
export const acknowledgementReply = <Data extends SnapshotAcknowledgement>(
  status: number,
  message: string,
  data: Data,
  replay: boolean,
): Reply<{ readonly error: false; readonly message: string; readonly data: Data }> => ({
  status,
  body: { error: false, message, data },
  headers: { Location: data.status_url },
  ...(replay ? { replay: true } : {}),
});
