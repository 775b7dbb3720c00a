/**
 * The shapes of snapshot sync (contract 2.8, 2.9, 7.2): path parameters, the
 * request bodies, the acknowledgement and the inner shapes of `counts`,
 * `failure` and `warnings` (docs/decisions/0304). Rows are documented as
 * `SnapshotRow` but decoded as unknown values: the api validates them with
 * the domain's fast row validation, never twice with Effect Schema.
 */
import { Retention, Snapshot } from "@dc/domain";
import { Schema, SchemaAST } from "effect";
import { UtcDateTime } from "../formats.ts";
import { pathParams } from "./request-parts.ts";

/** Largest `expected_row_count` of a staged snapshot (docs/decisions/0301). */
export const MAX_STAGED_ROWS = 1_000_000;

/** Largest chunk index: a staged snapshot cannot need more chunks than rows, plus one empty chunk. */
export const MAX_CHUNK_INDEX = MAX_STAGED_ROWS;

/** Longest snapshot reference. */
export const MAX_SNAPSHOT_REFERENCE_LENGTH = 255;

/** At most this many entries in `failure.errors` and `warnings`; the rest are counted as omitted. */
export const MAX_LISTED_ISSUES = 100;

const count = (description: string) => Schema.Int.pipe(Schema.nonNegative()).annotations({ description });

// A reference that is only a date names a day, not one snapshot's content (contract 4.3: "never a date alone").
const DATE_ALONE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Path references are stored as text, which cannot hold a NUL character: refused
 * by the schema (the router leaves path parameters to their schemas, so that an
 * encrypted id with a NUL stays an unknown id).
 */
const withoutNul = Schema.filter<typeof Schema.String>((value) => !value.includes("\u0000") || "must not contain NUL characters");

export const SnapshotReference = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(MAX_SNAPSHOT_REFERENCE_LENGTH, {
    message: () => `must be at most ${MAX_SNAPSHOT_REFERENCE_LENGTH} characters`,
  }),
  withoutNul,
  Schema.filter((value) => !CONTROL.test(value) || "must not contain control characters"),
  Schema.filter(
    (value) =>
      !DATE_ALONE.test(value) || "must identify one snapshot's content (an export id or a UUID), not a date alone",
  ),
).annotations({
  description:
    "Client-created reference of one complete logical snapshot (an immutable export id or a UUID, never a date " +
    "alone; 1 to 255 characters). Reuse it only to retry the same content.",
  examples: ["export-2026-11-21-0001"],
});

const ApiReference = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  withoutNul,
  Schema.maxLength(255, { message: () => "must be at most 255 characters" }),
).annotations({ description: "The campaign's API reference" });

/** `0`, `1`, `2`...: no sign, no leading zero, no exponent, so one chunk has one URL. */
const ChunkIndex = Schema.transform(
  Schema.String.pipe(
    Schema.pattern(/^(0|[1-9][0-9]{0,6})$/, { message: () => `must be an integer from 0 to ${MAX_CHUNK_INDEX}` }),
    Schema.filter((value) => Number(value) <= MAX_CHUNK_INDEX || `must be an integer from 0 to ${MAX_CHUNK_INDEX}`),
  ),
  Schema.Int,
  { strict: true, decode: Number, encode: String },
).annotations({
  description: "Zero-based chunk index, sent strictly in order",
  // The path carries digits; the document says what they mean (contract 4.2: an integer).
  jsonSchema: { type: "integer", minimum: 0, maximum: MAX_CHUNK_INDEX, description: "Zero-based chunk index, sent strictly in order" },
});

export const SnapshotParams = pathParams(
  Schema.Struct({ apiReference: ApiReference, snapshotReference: SnapshotReference }),
);
export type SnapshotParams = typeof SnapshotParams.Type;

export const ChunkParams = pathParams(
  Schema.Struct({ apiReference: ApiReference, snapshotReference: SnapshotReference, chunkIndex: ChunkIndex }),
);
export type ChunkParams = typeof ChunkParams.Type;

/**
 * The row as documented: the domain's row schema, with the legacy key shown
 * as "any JSON value" explicitly (a bare unknown would emit a `$id` that
 * clashes with other unknown values in one document).
 */
const DocumentedRow = Schema.Struct({
  ...Snapshot.Row.fields,
  [Snapshot.legacyKey]: Schema.optionalWith(
    Schema.Unknown.annotations({
      jsonSchema: {
        description: "Legacy key: tolerated and ignored whatever its value or JSON type",
        anyOf: [
          { type: "string" },
          { type: "number" },
          { type: "boolean" },
          { type: "null" },
          { type: "object" },
          { type: "array", items: {} },
        ],
      },
    }),
    { exact: true },
  ),
}).annotations({
  identifier: "SnapshotRow",
  description:
    "A snapshot row. Unknown keys are rejected, and so are `snapshot_at`, `allocations`, " +
    "`financial_operations`, `coverage` and `covered_remaining_amount`. `null` in an optional field reads as absent.",
});

/**
 * `rows` decodes as an array of unknown values; the document shows the row
 * schema through a surrogate (the api validates rows itself, fast). The
 * 20,000-row limit is checked by the api so that it can answer `too_many_rows`.
 */
const Rows = Schema.Array(Schema.Unknown).annotations({
  message: () => "must be an array of snapshot rows",
  [SchemaAST.SurrogateAnnotationId]: Schema.Array(DocumentedRow)
    .pipe(Schema.maxItems(Snapshot.MAX_ROWS))
    .annotations({
      title: "rows",
      description:
        `Snapshot rows, at most ${Snapshot.MAX_ROWS}. Each row carries \`internal_id\` (account ` +
        "balances) or `invoice_reference` (invoice balances); the first row decides the stream for the whole snapshot.",
    }).ast,
});

export const SnapshotRowsBody = Schema.Struct({ rows: Rows }).annotations({ identifier: "SnapshotRowsBody" });
export type SnapshotRowsBody = typeof SnapshotRowsBody.Type;

export const StagedSnapshotStart = Schema.Struct({
  expected_row_count: Schema.Int.pipe(Schema.between(0, MAX_STAGED_ROWS)).annotations({
    message: () => ({ message: `must be an integer from 0 to ${MAX_STAGED_ROWS}`, override: true }),
    description: "Total rows the chunks will carry; finalization requires exactly this many",
  }),
}).annotations({ identifier: "StagedSnapshotStart" });
export type StagedSnapshotStart = typeof StagedSnapshotStart.Type;

export const SnapshotCounts = Schema.Struct({
  rows: count("Rows in the snapshot"),
  created: count("Debts created"),
  updated: count("Existing debts whose balance or data changed"),
  unchanged: count("Existing debts the snapshot left as they were"),
  settled: count("Active campaign debts omitted from the snapshot and settled"),
  plans_replaced: count("Active local payment plans replaced (or cancelled) by a row's `payment_plan`"),
  plans_kept: count("Active local payment plans kept (row without `payment_plan`, or an identical plan)"),
  payments: count("Payment records written: installment payments, balance decreases and settlements"),
  skipped_zero_balance: count("New identities with a zero balance, not created"),
  warnings: count("Non-blocking warnings raised (all of them, including those not listed)"),
}).annotations({ identifier: "SnapshotCounts", description: "What applying the snapshot did (set once completed)" });
export type SnapshotCounts = typeof SnapshotCounts.Type;

export const SnapshotRowError = Schema.Struct({
  row_index: count("Zero-based index of the row over the whole snapshot (all chunks)"),
  field: Schema.String.annotations({
    description:
      "Dotted path inside the row, e.g. `payment_plan` or `payment_plan.installments.0.paid_at`; empty for the row itself",
  }),
  reason: Schema.String,
}).annotations({ identifier: "SnapshotRowError" });
export type SnapshotRowError = typeof SnapshotRowError.Type;

export const SnapshotFailure = Schema.Struct({
  code: Schema.Literal("invalid_snapshot_row", "processing_error", "snapshot_expired").annotations({
    description:
      "`invalid_snapshot_row`: rows break a rule (across chunks at finalization, or against the campaign's debts " +
      "while applying); `processing_error`: the snapshot could not be applied; `snapshot_expired`: a staged " +
      `snapshot was not finalized within ${Retention.stagedUploadDays} days of its start or last chunk`,
  }),
  message: Schema.String,
  errors: Schema.Array(SnapshotRowError)
    .pipe(Schema.maxItems(MAX_LISTED_ISSUES))
    .annotations({
      description: `The first ${MAX_LISTED_ISSUES} row errors, by row index`,
    }),
  error_count: count("All row errors"),
  errors_omitted: count("Row errors not listed in `errors`"),
}).annotations({ identifier: "SnapshotFailure", description: "Why the snapshot failed; nothing of it was applied" });
export type SnapshotFailure = typeof SnapshotFailure.Type;

export const SnapshotWarning = Schema.Struct({
  row_index: count("Zero-based index of the row over the whole snapshot"),
  code: Schema.Literal("expensive_destination", "debt_cancelled").annotations({
    description:
      "`expensive_destination`: the row's phone is a costly destination the campaign does not allow (the row is " +
      "still applied); `debt_cancelled`: the row matches a cancelled debt and was not applied to it",
  }),
  field: Schema.String,
  message: Schema.String,
}).annotations({ identifier: "SnapshotWarning", description: "A non-blocking remark about one row" });
export type SnapshotWarning = typeof SnapshotWarning.Type;

const ackFields = {
  api_reference: Schema.String.annotations({ description: "The campaign's API reference" }),
  snapshot_reference: Schema.String,
  delivery_mode: Snapshot.DeliveryMode,
  status: Snapshot.SnapshotStatus,
  core_applied: Schema.Boolean.annotations({ description: "False until the snapshot has been applied to the debts" }),
  expected_row_count: count("Total rows declared (the row count of a one-request snapshot)"),
  received_row_count: count("Rows received so far"),
  received_chunk_count: count("Chunks received so far (1 for a one-request snapshot)"),
  next_chunk_index: count("Index of the next chunk to send"),
  counts: Schema.NullOr(SnapshotCounts),
  failure: Schema.NullOr(SnapshotFailure),
  created_at: UtcDateTime,
  updated_at: UtcDateTime,
  status_url: Schema.String.annotations({
    description: "Path of the snapshot status resource (also in the `Location` header)",
    examples: ["/external-api/v1/campaigns/spring-campaign/snapshots/export-2026-11-21-0001"],
  }),
  warnings: Schema.optionalWith(
    Schema.Array(SnapshotWarning)
      .pipe(Schema.maxItems(MAX_LISTED_ISSUES))
      .annotations({
        description: `Only when completed: the first ${MAX_LISTED_ISSUES} warnings, by row index`,
      }),
    { exact: true },
  ),
  warning_count: Schema.optionalWith(count("Only when completed: all warnings"), { exact: true }),
  warnings_omitted: Schema.optionalWith(count("Only when completed: warnings not listed in `warnings`"), {
    exact: true,
  }),
};

export const SnapshotAcknowledgement = Schema.Struct(ackFields).annotations({
  identifier: "SnapshotAcknowledgement",
  description:
    "A snapshot's state. `warnings`, `warning_count` and `warnings_omitted` appear once completed.",
});
export type SnapshotAcknowledgement = typeof SnapshotAcknowledgement.Type;

export const SnapshotChunkAcknowledgement = Schema.Struct({
  ...ackFields,
  chunk_index: count("Index of the chunk this acknowledgement answers"),
}).annotations({ identifier: "SnapshotChunkAcknowledgement", description: "A snapshot's state after a chunk upload" });
export type SnapshotChunkAcknowledgement = typeof SnapshotChunkAcknowledgement.Type;
