/**
 * The messages, `error_code` values and documented error responses of
 * snapshot sync (contract 7.2, docs/decisions/0300 to 0302).
 */
import { Retention, Snapshot } from "@dc/domain";
import { DEFAULT_JSON_BODY_BYTES, type ErrorCase } from "../endpoint.ts";
import { errorCases, messages, payloadTooLargeMessage } from "../errors.ts";

export const snapshotMessages = {
  accepted: "Snapshot accepted",
  alreadyAccepted: "Snapshot already accepted",
  alreadyProcessed: "Snapshot already processed",
  started: "Staged snapshot started",
  alreadyStarted: "Staged snapshot already started",
  chunkAccepted: "Snapshot chunk accepted",
  chunkAlreadyAccepted: "Snapshot chunk already accepted",
  finalized: "Snapshot finalized",
  alreadyFinalized: "Snapshot already finalized",
  retrieved: "Snapshot retrieved successfully",
  campaignNotFound: "Campaign not found",
  snapshotNotFound: "Snapshot not found",
  referenceConflict: "Snapshot reference already used with different content",
  deliveryModeConflict: (existing: Snapshot.DeliveryMode) =>
    `Snapshot reference already used with delivery mode ${existing}`,
  chunkContentConflict: (index: number) => `Chunk ${index} was already accepted with different content`,
  chunkOutOfOrder: (index: number, next: number) => `Chunk ${index} is out of order: next_chunk_index is ${next}`,
  finalizedNoChunks: "Snapshot already finalized: no further chunk is accepted",
  expired: "Snapshot expired before it was finalized: start a new snapshot under a new reference",
  incomplete: (received: number, expected: number) =>
    `Snapshot incomplete: ${received} of ${expected} expected rows received`,
  invalidRows: "Snapshot rows are invalid",
} as const;

/** Stable `error_code` values of snapshot errors (contract 7.2 and docs/decisions/0300). */
export const snapshotErrorCodes = {
  invalidRow: "invalid_snapshot_row",
  tooManyRows: "too_many_rows",
  expectedRowCountExceeded: "expected_row_count_exceeded",
  referenceConflict: "snapshot_reference_conflict",
  deliveryModeConflict: "snapshot_delivery_mode_conflict",
  chunkContentConflict: "chunk_content_conflict",
  chunkOutOfOrder: "chunk_out_of_order",
  alreadyFinalized: "snapshot_already_finalized",
  expired: "snapshot_expired",
  incomplete: "snapshot_incomplete",
} as const;

const api = (status: number, message: string, description: string, errorCode?: string): ErrorCase => ({
  status,
  message,
  description,
  envelope: "api",
  ...(errorCode === undefined ? {} : { errorCode }),
});

const codes = snapshotErrorCodes;

/** Documented error responses of the snapshot operations. */
export const snapshotErrorCases = {
  invalidBody: api(
    400,
    messages.validationFailed,
    "Malformed JSON, a body that is not `{rows: [...]}`, an unknown top-level key, or an invalid path parameter; `details` names each field",
  ),
  tooManyRows: api(
    400,
    messages.validationFailed,
    `More than ${Snapshot.MAX_ROWS} rows in \`rows\` (\`details.rows\`)`,
    codes.tooManyRows,
  ),
  invalidRow: api(
    422,
    messages.validationFailed,
    "A row breaks a rule; `details` maps `rows.<index>.<field>` to the reason, e.g. `rows.3.payment_plan` when the pending installments do not sum to `remaining_amount`. Nothing is stored",
    codes.invalidRow,
  ),
  invalidPath: api(400, messages.validationFailed, "An invalid path parameter; `details` names it"),
  campaignNotFound: errorCases.notFound(snapshotMessages.campaignNotFound),
  snapshotNotFound: api(
    404,
    snapshotMessages.snapshotNotFound,
    "No snapshot under this reference in the campaign (a staged snapshot is opened by its start or by chunk 0)",
  ),
  referenceConflict: api(
    409,
    snapshotMessages.referenceConflict,
    "The reference was already used with different content (other bytes, or another `expected_row_count`)",
    codes.referenceConflict,
  ),
  deliveryModeConflict: (existing: Snapshot.DeliveryMode) =>
    api(
      409,
      snapshotMessages.deliveryModeConflict(existing),
      `The reference already holds a ${existing === "staged" ? "staged" : "one-request"} snapshot`,
      codes.deliveryModeConflict,
    ),
  payloadTooLarge: api(
    413,
    payloadTooLargeMessage(Snapshot.MAX_BODY_BYTES),
    "The body exceeds 10 MiB",
    "payload_too_large",
  ),
  startPayloadTooLarge: api(
    413,
    payloadTooLargeMessage(DEFAULT_JSON_BODY_BYTES),
    "The body exceeds 1 MiB",
    "payload_too_large",
  ),
  expectedRowCountExceeded: api(
    422,
    messages.validationFailed,
    "The chunk would bring the received rows above `expected_row_count` (`details.rows`)",
    codes.expectedRowCountExceeded,
  ),
  chunkContentConflict: api(
    409,
    snapshotMessages.chunkContentConflict(0),
    "Other bytes for an index already accepted",
    codes.chunkContentConflict,
  ),
  chunkOutOfOrder: api(
    409,
    snapshotMessages.chunkOutOfOrder(3, 1),
    "Index above `next_chunk_index`",
    codes.chunkOutOfOrder,
  ),
  alreadyFinalized: api(
    409,
    snapshotMessages.finalizedNoChunks,
    "A new chunk after finalization",
    codes.alreadyFinalized,
  ),
  expired: api(
    409,
    snapshotMessages.expired,
    `The staged snapshot was not finalized within ${Retention.stagedUploadDays} days of its start or last chunk: it is ` +
      "`failed` with failure code `snapshot_expired` and takes no chunk and no finalize",
    codes.expired,
  ),
  crossChunkInvalidRow: api(
    422,
    messages.validationFailed,
    "Rows break a rule across chunks (duplicate identity or invoice reference, mixed streams); `details` names each row. The snapshot becomes `failed` with this `failure`",
    codes.invalidRow,
  ),
  incomplete: api(
    409,
    snapshotMessages.incomplete(12000, 30000),
    "Fewer rows received than `expected_row_count`",
    codes.incomplete,
  ),
};
