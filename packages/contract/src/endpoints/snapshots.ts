/**
 * Snapshot sync (contract 3.4, 4.2, 4.3, 7.2, 8): the one-request submit,
 * staged delivery (start, chunks, finalize) and the status resource. Choices
 * the contract leaves open are recorded in docs/decisions/0300 to 0306.
 */
import { Retention, Snapshot } from "@dc/domain";
import { API_PREFIX, DEFAULT_JSON_BODY_BYTES, endpoint } from "../endpoint.ts";
import { DataEnvelope } from "../envelopes.ts";
import { errorCases, protectedErrors } from "../errors.ts";
import { snapshotErrorCases as cases } from "./snapshot-errors.ts";
import {
  ChunkParams,
  MAX_STAGED_ROWS,
  SnapshotAcknowledgement,
  SnapshotChunkAcknowledgement,
  SnapshotParams,
  SnapshotRowsBody,
  StagedSnapshotStart,
} from "./snapshot-fields.ts";

const rowsBody = {
  contentType: "application/json" as const,
  schema: SnapshotRowsBody,
  maxBytes: Snapshot.MAX_BODY_BYTES,
  unstorableTextPerRow: true as const,
};
const rowsBodyErrors = [
  cases.invalidBody,
  cases.tooManyRows,
  cases.invalidRow,
  cases.payloadTooLarge,
  errorCases.unsupportedMediaType,
  errorCases.unsupportedContentEncoding,
];

const AckEnvelope = DataEnvelope(SnapshotAcknowledgement).annotations({
  identifier: "SnapshotAcknowledgementResponse",
});
const ChunkAckEnvelope = DataEnvelope(SnapshotChunkAcknowledgement).annotations({
  identifier: "SnapshotChunkAcknowledgementResponse",
});

const statusPath = `${API_PREFIX}/campaigns/{apiReference}/snapshots/{snapshotReference}`;
const locationNote = "The `Location` header carries the snapshot status path (`status_url`).";
/** docs/decisions/0021: what the retention purge keeps of a settled snapshot. */
const bodyRetentionNote =
  `The body is stored as sent until ${Retention.snapshotBodyDays} days after the snapshot completes or fails; its ` +
  "SHA-256, counts and outcome are kept for good, so identical retries are still recognised after that.";
/** docs/decisions/0022: staged uploads left unfinished expire. */
const expiryNote =
  `A staged snapshot not finalized within ${Retention.stagedUploadDays} days of its start or its last chunk expires: ` +
  "it becomes `failed` with failure code `snapshot_expired` (and a `snapshot.failed` webhook event), and a new " +
  "chunk or a finalize is then 409 `snapshot_expired`.";
/** Contract 4.2 and 4.3: the acknowledgement of a snapshot write carries `Location`. */
const locationHeader = { Location: "The snapshot status path, the same as `status_url`" };

export const submitSnapshot = endpoint({
  operationId: "submitSnapshot",
  method: "put",
  path: statusPath,
  scope: "debts:write",
  tags: ["Snapshots"],
  summary: "Submit a complete snapshot in one request",
  description:
    "Sends a campaign's complete receivables (at most 20,000 rows, 10 MiB). Rows are validated at once; any invalid " +
    "row is a 422 `invalid_snapshot_row` and nothing is stored. An accepted snapshot is `pending`: it is applied " +
    "asynchronously, one snapshot of a campaign at a time in acceptance order; poll `status_url`. Every active " +
    "campaign debt omitted from `rows` is then settled.\n\n" +
    "Idempotency: a retry with the same reference and the exact same body bytes answers 202 while pending or " +
    "processing and 200 with the existing result once completed or failed (nothing is applied twice). Other bytes " +
    "(whitespace and key order count) are 409 `snapshot_reference_conflict`; a reference holding a staged snapshot " +
    `is 409 \`snapshot_delivery_mode_conflict\`. ${bodyRetentionNote} ${locationNote}`,
  params: SnapshotParams,
  body: rowsBody,
  success: {
    status: 202,
    description: `Accepted: \`pending\`, not yet applied. ${locationNote}`,
    schema: AckEnvelope,
    replyHeaders: locationHeader,
  },
  alsoSucceedsWith: [
    {
      status: 200,
      description: `Identical retry of a completed or failed snapshot: the existing result. ${locationNote}`,
    },
  ],
  errors: [
    ...protectedErrors("debts:write"),
    ...rowsBodyErrors,
    cases.campaignNotFound,
    cases.referenceConflict,
    cases.deliveryModeConflict("staged"),
  ],
  rateLimit: "snapshot_submit",
});

export const startStagedSnapshot = endpoint({
  operationId: "startStagedSnapshot",
  method: "post",
  path: `${statusPath}/start`,
  scope: "debts:write",
  tags: ["Snapshots"],
  summary: "Start a staged snapshot",
  description:
    `Opens a staged snapshot declaring \`expected_row_count\` (0 to ${MAX_STAGED_ROWS}); it is \`uploading\` until ` +
    `finalized. Then send the chunks in order and finalize. ${expiryNote} ` +
    "On a snapshot opened by its chunk 0 without a count, a start declares it (200) if the rows received fit, else 409 " +
    "`snapshot_reference_conflict`. A retry with the same `expected_row_count` answers 200 " +
    "with the snapshot's current state; another count is 409 `snapshot_reference_conflict`; a reference holding a " +
    `one-request snapshot is 409 \`snapshot_delivery_mode_conflict\`. ${locationNote}`,
  params: SnapshotParams,
  body: { contentType: "application/json", schema: StagedSnapshotStart, maxBytes: DEFAULT_JSON_BODY_BYTES },
  success: {
    status: 201,
    description: `Started: \`uploading\`, no rows yet. ${locationNote}`,
    schema: AckEnvelope,
    replyHeaders: locationHeader,
  },
  alsoSucceedsWith: [{ status: 200, description: `Identical retry: the snapshot's current state. ${locationNote}` }],
  errors: [
    ...protectedErrors("debts:write"),
    errorCases.validation,
    cases.startPayloadTooLarge,
    errorCases.unsupportedMediaType,
  errorCases.unsupportedContentEncoding,
    cases.campaignNotFound,
    cases.referenceConflict,
    cases.deliveryModeConflict("one_request"),
  ],
  rateLimit: "write",
});

export const uploadSnapshotChunk = endpoint({
  operationId: "uploadSnapshotChunk",
  method: "put",
  path: `${statusPath}/chunks/{chunkIndex}`,
  scope: "debts:write",
  tags: ["Snapshots"],
  summary: "Upload a chunk of a staged snapshot",
  description:
    "Stores one chunk (at most 20,000 rows, 10 MiB) of an `uploading` snapshot with the SHA-256 of its exact body " +
    "bytes. No debt is modified. Row indexes in errors count over the whole snapshot. Chunk 0 on a reference holding " +
    "no snapshot opens a staged one (201) whose row count is undeclared: a later start declares it, or the finalization " +
    "declares the rows received; until then `expected_row_count` shows the rows received and at most " +
    `${MAX_STAGED_ROWS} rows are taken. Any other index there is 404. Chunks go strictly in order: ` +
    "an index above `next_chunk_index` is 409 `chunk_out_of_order`, in every state. An identical retry of an accepted " +
    "index answers 200; other bytes for it are 409 `chunk_content_conflict`. Rows over all chunks may not exceed " +
    "`expected_row_count` (422 `expected_row_count_exceeded`); after finalization a chunk at `next_chunk_index` is 409 " +
    `\`snapshot_already_finalized\`. ${expiryNote} ${bodyRetentionNote} ${locationNote}`,
  params: ChunkParams,
  body: rowsBody,
  success: {
    status: 201,
    description: `Chunk stored; counters rose. ${locationNote}`,
    schema: ChunkAckEnvelope,
    replyHeaders: locationHeader,
  },
  alsoSucceedsWith: [
    { status: 200, description: `Identical retry of an accepted chunk: nothing changes. ${locationNote}` },
  ],
  errors: [
    ...protectedErrors("debts:write"),
    ...rowsBodyErrors,
    cases.expectedRowCountExceeded,
    cases.campaignNotFound,
    cases.snapshotNotFound,
    cases.chunkContentConflict,
    cases.chunkOutOfOrder,
    cases.alreadyFinalized,
    cases.expired,
    cases.deliveryModeConflict("one_request"),
  ],
  rateLimit: "snapshot_chunk",
});

export const finalizeSnapshot = endpoint({
  operationId: "finalizeSnapshot",
  method: "post",
  path: `${statusPath}/finalize`,
  scope: "debts:write",
  tags: ["Snapshots"],
  summary: "Finalize a staged snapshot",
  description:
    "Closes an `uploading` snapshot once `received_row_count` equals `expected_row_count` (else 409 " +
    "`snapshot_incomplete`; a snapshot opened by its chunk 0 with no declared count declares the rows received), validates the rules across all chunks (duplicate identities, duplicate invoice " +
    "references, one stream) and makes it `pending`: it is then applied asynchronously like a one-request snapshot. " +
    "Rows breaking a cross-chunk rule are a 422 `invalid_snapshot_row` naming each row, and the snapshot becomes " +
    "`failed` with that `failure` (its chunks cannot change). A repeated finalize answers 202 while pending or " +
    "processing and 200 once completed or failed, except for an expired snapshot: 409 `snapshot_expired`. No " +
    `request body. ${locationNote}`,
  params: SnapshotParams,
  success: {
    status: 202,
    description: `Finalized: \`pending\`, not yet applied. ${locationNote}`,
    schema: AckEnvelope,
    replyHeaders: locationHeader,
  },
  alsoSucceedsWith: [
    {
      status: 200,
      description: `Repeated finalize of a completed or failed snapshot: the existing result. ${locationNote}`,
    },
  ],
  errors: [
    ...protectedErrors("debts:write"),
    cases.invalidPath,
    cases.crossChunkInvalidRow,
    cases.campaignNotFound,
    cases.snapshotNotFound,
    cases.incomplete,
    cases.expired,
    cases.deliveryModeConflict("one_request"),
  ],
  rateLimit: "write",
});

/** The longest a status read waits for its snapshot to settle (`Prefer: wait`, docs/decisions/0307). */
export const SNAPSHOT_STATUS_MAX_WAIT_SECONDS = 30;

export const getSnapshot = endpoint({
  operationId: "getSnapshot",
  method: "get",
  path: statusPath,
  scope: "debts:read",
  tags: ["Snapshots"],
  summary: "Read a snapshot's status",
  description:
    "The snapshot status resource (`status_url`): the acknowledgement with `counts` and `failure`, and once " +
    "completed `warnings` (the first 100), `warning_count` and `warnings_omitted`. Scope `debts:read`. " +
    "Instead of polling, send `Prefer: wait=<seconds>` (RFC 7240): while the snapshot is " +
    "`pending` or `processing`, the answer comes when it settles (`completed` or `failed`) or when the seconds " +
    `(at most ${SNAPSHOT_STATUS_MAX_WAIT_SECONDS}) have passed, whichever is first.`,
  params: SnapshotParams,
  requestHeaders: {
    Prefer:
      `\`wait=<seconds>\` (RFC 7240): wait up to that long, at most ${SNAPSHOT_STATUS_MAX_WAIT_SECONDS}, for a \`pending\` or ` +
      "`processing` snapshot to settle before answering. Other preferences and unusable values are ignored.",
  },
  success: {
    status: 200,
    description: "The snapshot",
    schema: AckEnvelope,
    optionalReplyHeaders: {
      "Preference-Applied": "`wait=<seconds>` when the request's `Prefer: wait` was honoured, with the seconds waited for at most",
    },
  },
  errors: [...protectedErrors("debts:read"), cases.invalidPath, cases.campaignNotFound, cases.snapshotNotFound],
  rateLimit: "read",
});
