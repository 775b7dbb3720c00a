/** Examples of the snapshot operations (operations.ts gathers them). */
import { campaign, ok, snapshotAcknowledgement, snapshotReference, snapshotRows } from "./resources.ts";

const snapshotPath = { apiReference: campaign, snapshotReference };

export const snapshotsExamples = {
  submitSnapshot: {
    path: snapshotPath,
    request: { rows: snapshotRows },
    response: ok("Snapshot accepted", snapshotAcknowledgement("pending")),
  },
  startStagedSnapshot: {
    path: snapshotPath,
    request: { expected_row_count: 2 },
    response: ok("Staged snapshot started", snapshotAcknowledgement("uploading", "staged")),
  },
  uploadSnapshotChunk: {
    path: { ...snapshotPath, chunkIndex: 0 },
    request: { rows: snapshotRows },
    response: ok("Snapshot chunk accepted", {
      ...snapshotAcknowledgement("uploading", "staged"),
      received_row_count: 2,
      received_chunk_count: 1,
      next_chunk_index: 1,
      chunk_index: 0,
    }),
  },
  finalizeSnapshot: {
    path: snapshotPath,
    response: ok("Snapshot finalized", snapshotAcknowledgement("pending", "staged")),
  },
  getSnapshot: {
    path: snapshotPath,
    response: ok("Snapshot retrieved successfully", snapshotAcknowledgement("completed")),
  },
} as const;
