/**
 * The body and result of POST /debts/batch (docs/decisions/0107). Entries
 * are decoded one by one by the handler, so that a bad entry fails alone;
 * the request schema only bounds the array and documents the entry.
 */
import { JSONSchema, Schema } from "effect";
import { ValidationIssue } from "../envelopes.ts";
import { EncryptedId } from "../ids.ts";
import { createDebtFields } from "./debt-fields.ts";

/** Largest `debts` array of POST /debts/batch (docs/decisions/0107). */
export const MAX_BATCH_SIZE = 1000;
export const BATCH_BODY_BYTES = 10 * 1024 * 1024;

/** JSON schema of one batch entry, for the document only: entries are validated one by one. */
const batchRowFields = {
  temp_id: Schema.optional(
    Schema.NullOr(
      Schema.String.pipe(Schema.maxLength(255, { message: () => "must be at most 255 characters" })).annotations({
        description: "The client's id for this entry, echoed in the result",
      }),
    ),
  ),
  ...createDebtFields,
};
export const BatchDebtEntry = Schema.Struct(batchRowFields);
export type BatchDebtEntry = typeof BatchDebtEntry.Type;

const batchEntryJsonSchema = JSONSchema.fromAST(BatchDebtEntry.ast, {
  definitions: {},
  definitionPath: "#/components/schemas/",
  target: "openApi3.1",
});

/** Accepts any entry at decoding time (a bad entry fails alone, in `failed`), documented as BatchDebtEntry. */
const LenientBatchEntry = Schema.declare((_input: unknown): _input is unknown => true, {
  jsonSchema: {
    ...batchEntryJsonSchema,
    description: "A debt to create: the fields of POST /debts plus `temp_id`",
  },
});

export const CreateDebtsBatchBody = Schema.Struct({
  batch_name: Schema.optional(
    Schema.NullOr(Schema.String.pipe(Schema.maxLength(255, { message: () => "must be at most 255 characters" }))),
  ),
  creditor_id: Schema.optional(
    Schema.NullOr(Schema.String).annotations({ description: "Default creditor of entries without `creditor_id`" }),
  ),
  accept_expensive_destination: Schema.optional(Schema.NullOr(Schema.Boolean)),
  detect_civility: Schema.optional(Schema.NullOr(Schema.Boolean)),
  validate_emails: Schema.optional(Schema.NullOr(Schema.Boolean)),
  debts: Schema.Array(LenientBatchEntry).pipe(
    Schema.minItems(1, { message: () => "must contain at least 1 debt" }),
    Schema.maxItems(MAX_BATCH_SIZE, { message: () => `must contain at most ${MAX_BATCH_SIZE} debts` }),
  ),
}).annotations({
  identifier: "CreateDebtsBatchBody",
  description:
    "Batch-wide options apply to entries that do not set them. At most 1,000 entries; each is validated on its own.",
});
export type CreateDebtsBatchBody = typeof CreateDebtsBatchBody.Type;

const entryHead = {
  index: Schema.Int.annotations({ description: "Zero-based position in `debts`" }),
  temp_id: Schema.NullOr(Schema.String),
};

export const BatchCreatedEntry = Schema.Struct({
  ...entryHead,
  debt_id: EncryptedId("debt"),
  status: Schema.Literal("valid"),
  data: Schema.Struct({
    firstname: Schema.NullOr(Schema.String),
    lastname: Schema.NullOr(Schema.String),
    phone: Schema.NullOr(Schema.String),
    email: Schema.NullOr(Schema.String),
    amount: Schema.Number,
    currency: Schema.String,
  }),
}).annotations({ identifier: "BatchCreatedEntry" });

export const BatchFailedEntry = Schema.Struct({
  ...entryHead,
  status: Schema.Literal("error"),
  errors: Schema.Array(ValidationIssue).annotations({ description: "Every problem of the entry, by field" }),
}).annotations({ identifier: "BatchFailedEntry" });

export const BatchSkippedEntry = Schema.Struct({
  ...entryHead,
  status: Schema.Literal("skipped"),
  reason: Schema.Literal("duplicate_internal_id", "duplicate_in_batch"),
  internal_id: Schema.String,
  existing_debt_id: Schema.NullOr(EncryptedId("debt")).annotations({
    description: "The debt that already holds this internal_id (duplicate_internal_id)",
  }),
  duplicate_of_index: Schema.NullOr(Schema.Int).annotations({
    description: "The earlier entry with the same creditor and internal_id (duplicate_in_batch)",
  }),
}).annotations({ identifier: "BatchSkippedEntry" });

export const BatchSummary = Schema.Struct({
  total: Schema.Int,
  created: Schema.Int,
  failed: Schema.Int,
  skipped: Schema.Int,
  valid: Schema.Int.annotations({ description: "Entries that passed validation (created + skipped)" }),
  error: Schema.Int.annotations({ description: "Entries that failed validation (= failed)" }),
  email_validation: Schema.Struct({
    valid: Schema.Int,
    invalid: Schema.Int,
    unverifiable: Schema.Int,
    charged: Schema.Int,
  }).annotations({ description: "E-mail validation outcomes of the created debts" }),
}).annotations({ identifier: "BatchSummary" });

export const BatchResult = Schema.Struct({
  import_id: Schema.String.annotations({
    description: "UUID of the import batch",
    jsonSchema: { type: "string", format: "uuid" },
  }),
  batch_name: Schema.NullOr(Schema.String),
  created: Schema.Array(BatchCreatedEntry),
  failed: Schema.Array(BatchFailedEntry),
  skipped: Schema.Array(BatchSkippedEntry),
  summary: BatchSummary,
}).annotations({ identifier: "BatchResult" });
export type BatchResult = typeof BatchResult.Type;
