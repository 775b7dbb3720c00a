/**
 * Debt operations (contract 4.5 and 4.8): create one or many, read, update,
 * delete, and the paginated lists (all debts, by creditor and its alias, by
 * debtor) with the filters of docs/decisions/0109.
 */
import { DebtStatus, Money } from "@dc/domain";
import { Schema } from "effect";
import { API_PREFIX, DEFAULT_JSON_BODY_BYTES, endpoint, type ErrorCase } from "../endpoint.ts";
import { DataEnvelope, ListEnvelope, MessageEnvelope } from "../envelopes.ts";
import { errorCases, jsonBodyErrors, messages, protectedErrors } from "../errors.ts";
import { InstantFilter } from "../formats.ts";
import { paginationFields, plainNumberPattern, PlainNumberString } from "../pagination.ts";
import { BATCH_BODY_BYTES, BatchResult, CreateDebtsBatchBody } from "./debt-batch.ts";
import { CreatedDebt, CreateDebtBody, Debt, UpdateDebtBody } from "./debt-fields.ts";
import { debtorMessages } from "./debtors.ts";
import { pathParams, queryParams } from "./request-parts.ts";

export const debtMessages = {
  created: "Debt created successfully",
  retrieved: "Debt retrieved successfully",
  updated: "Debt updated successfully",
  deleted: "Debt deleted successfully",
  batchProcessed: "Batch processed successfully",
  notFoundOrInvalid: "Debt not found or invalid ID",
  duplicateInternalId: "A debt with this internal_id already exists for this creditor",
} as const;

/**
 * An amount bound is compared exactly (docs/decisions/0109): a text that a
 * number cannot hold exactly would be rounded, so it is refused.
 */
const inexactBound = "has more significant digits than a number holds exactly";

const amountFilter = (description: string) =>
  Schema.String.pipe(
    Schema.filter((text) => !plainNumberPattern(true).test(text) || Money.readsExactly(text, Number(text)) || inexactBound),
    Schema.compose(PlainNumberString(true, "must be a number greater than or equal to 0")),
    Schema.filter((value) => (Number.isFinite(value) && value >= 0) || "must be a number greater than or equal to 0"),
  ).annotations({
    description,
    message: () => "must be a number greater than or equal to 0",
    jsonSchema: { type: "number", minimum: 0 },
  });

const DebtListQueryStruct = Schema.Struct({
  ...paginationFields,
  status: Schema.optional(
    DebtStatus.StatusFilter.annotations({
      identifier: "DebtStatusFilter",
      description:
        "`active` (pending, in progress or on a payment plan), `paid`, `disputed`, or one exact status value",
    }),
  ),
  currency: Schema.optional(Money.CurrencyCode.annotations({ description: "Only debts in this ISO 4217 currency" })),
  amount_min: Schema.optional(
    amountFilter("Only debts whose amount is at least this, in major units of each debt's currency"),
  ),
  amount_max: Schema.optional(
    amountFilter("Only debts whose amount is at most this, in major units of each debt's currency"),
  ),
  created_after: Schema.optional(
    InstantFilter.annotations({
      description:
        "Only debts created at or after this instant: an ISO 8601 date-time with offset, or a date YYYY-MM-DD (its start, UTC)",
    }),
  ),
  created_before: Schema.optional(
    InstantFilter.annotations({
      description:
        "Only debts created strictly before this instant: an ISO 8601 date-time with offset, or a date YYYY-MM-DD (its start, UTC)",
    }),
  ),
  search: Schema.optional(
    Schema.String.pipe(
      Schema.minLength(1, { message: () => "must not be empty" }),
      Schema.maxLength(100, { message: () => "must be at most 100 characters" }),
    ).annotations({ description: "Case-insensitive substring of `internal_id` or of `amount_text`" }),
  ),
});
export const DebtListQuery = queryParams(DebtListQueryStruct);
export type DebtListQuery = typeof DebtListQueryStruct.Type;

export const DebtIdParams = pathParams(
  Schema.Struct({ id: Schema.String.annotations({ description: "Encrypted debt id" }) }),
);
export const CreditorDebtsParams = pathParams(
  Schema.Struct({ creditorId: Schema.String.annotations({ description: "Encrypted creditor id" }) }),
);
export const DebtorDebtsParams = pathParams(
  Schema.Struct({ debtorId: Schema.String.annotations({ description: "Encrypted debtor id" }) }),
);

const duplicateInternalId: ErrorCase = {
  status: 409,
  message: debtMessages.duplicateInternalId,
  description: "`internal_id` is already used by another debt of the same creditor",
  envelope: "api",
  errorCode: "duplicate_internal_id",
};
const bodyErrors = jsonBodyErrors();
const debtNotFound = errorCases.notFound(messages.debtNotFound);
const DebtListResponse = ListEnvelope(Debt).annotations({ identifier: "DebtListResponse" });

const listEndpoint = <const OperationId extends string, P>(
  operationId: OperationId,
  path: string,
  summary: string,
  description: string,
  params: Schema.Schema<P, Readonly<Record<string, string>>> | undefined,
  notFound: ErrorCase | undefined,
) =>
  endpoint({
    operationId,
    method: "get",
    path: `${API_PREFIX}${path}`,
    scope: "debts:read",
    tags: ["Debts"],
    summary,
    description:
      `${description} Newest first (created_at, then id). Filters apply before pagination, so \`total\` counts the ` +
      "filtered set. Each debt carries the group attributes `is_grouped` and `group_debt_ids`.",
    ...(params === undefined ? {} : { params }),
    query: DebtListQuery,
    success: { status: 200, description: "A page of debts", schema: DebtListResponse },
    errors: [...protectedErrors("debts:read"), errorCases.validation, ...(notFound === undefined ? [] : [notFound])],
    rateLimit: "read",
  });

export const listDebts = listEndpoint(
  "listDebts",
  "/debts",
  "List debts",
  "Every debt of the company.",
  undefined,
  undefined,
);

export const listDebtsByCreditor = listEndpoint(
  "listDebtsByCreditor",
  "/debts/by-creditor/{creditorId}",
  "List the debts of a creditor",
  "The debts of one creditor of the company; an unknown or foreign creditor is 404.",
  CreditorDebtsParams,
  errorCases.notFound(messages.creditorNotFound),
);

export const listDebtsByCreditorAlias = {
  ...listEndpoint(
    "listDebtsByCreditorAlias",
    "/debts/creditor/{creditorId}",
    "List the debts of a creditor (alias)",
    "Same operation as `GET /debts/by-creditor/{creditorId}` (kept as a second path for the same list), " +
      "counted on the same rate-limit budget.",
    CreditorDebtsParams,
    errorCases.notFound(messages.creditorNotFound),
  ),
  rateLimitBudget: "listDebtsByCreditor",
};

export const listDebtsByDebtor = listEndpoint(
  "listDebtsByDebtor",
  "/debts/debtor/{debtorId}",
  "List the debts of a debtor",
  "The debts linked to one debtor of the company (through `debtor_reference`); an unknown or foreign debtor is 404.",
  DebtorDebtsParams,
  errorCases.notFound(debtorMessages.notFound),
);

export const createDebt = endpoint({
  operationId: "createDebt",
  method: "post",
  path: `${API_PREFIX}/debts`,
  scope: "debts:write",
  tags: ["Debts"],
  summary: "Create a debt or a credit note",
  description:
    "Creates one debt with status `status.default.pending`. A `credited_invoice_reference` makes it a credit note. " +
    "Required: `amount`, `currency`, and `lastname`, `firstname` or `debtor_company`.",
  body: { contentType: "application/json", schema: CreateDebtBody, maxBytes: DEFAULT_JSON_BODY_BYTES },
  success: {
    status: 201,
    description: "The created debt with its e-mail validation; message `Debt created successfully`",
    schema: DataEnvelope(CreatedDebt).annotations({ identifier: "CreatedDebtResponse" }),
  },
  idempotencyKey: true,
  errors: [...protectedErrors("debts:write"), ...bodyErrors, duplicateInternalId, errorCases.idempotencyKeyReused],
  rateLimit: "write",
});

export const createDebtsBatch = endpoint({
  operationId: "createDebtsBatch",
  method: "post",
  path: `${API_PREFIX}/debts/batch`,
  scope: "debts:write",
  tags: ["Debts"],
  summary: "Create many debts",
  description:
    "Validates each entry on its own and creates every valid one in one statement, even when others fail. An entry " +
    "whose creditor already has a debt with its `internal_id`, or that repeats an earlier entry's, is skipped. " +
    "At most 1,000 entries.",
  body: { contentType: "application/json", schema: CreateDebtsBatchBody, maxBytes: BATCH_BODY_BYTES },
  success: {
    status: 201,
    description: "The import result; message `Batch processed successfully`",
    schema: DataEnvelope(BatchResult).annotations({ identifier: "BatchResultResponse" }),
  },
  idempotencyKey: true,
  errors: [...protectedErrors("debts:write"), ...jsonBodyErrors(BATCH_BODY_BYTES), errorCases.idempotencyKeyReused],
  rateLimit: "write",
});

export const getDebt = endpoint({
  operationId: "getDebt",
  method: "get",
  path: `${API_PREFIX}/debts/{id}`,
  scope: "debts:read",
  tags: ["Debts"],
  summary: "Read a debt",
  description: "One debt of the company.",
  params: DebtIdParams,
  success: {
    status: 200,
    description: "The debt",
    schema: DataEnvelope(Debt).annotations({ identifier: "DebtResponse" }),
  },
  errors: [...protectedErrors("debts:read"), debtNotFound],
  rateLimit: "read",
});

const updateEndpoint = <const OperationId extends string>(operationId: OperationId, method: "put" | "patch") =>
  endpoint({
    operationId,
    method,
    path: `${API_PREFIX}/debts/{id}`,
    scope: "debts:write",
    tags: ["Debts"],
    summary: method === "put" ? "Update a debt" : "Update a debt (PATCH)",
    description:
      "Updates any subset of the debt's writable fields, `timeline_id` included. PUT and PATCH behave the same. " +
      "`status`, `amount`, `currency` and `credited_invoice_reference` are read-only.",
    params: DebtIdParams,
    body: { contentType: "application/json", schema: UpdateDebtBody, maxBytes: DEFAULT_JSON_BODY_BYTES },
    success: {
      status: 200,
      description: "The updated debt; message `Debt updated successfully`",
      schema: DataEnvelope(Debt).annotations({ identifier: "DebtResponse" }),
    },
    errors: [...protectedErrors("debts:write"), ...bodyErrors, debtNotFound, duplicateInternalId],
    rateLimit: "write",
    // One operation under two methods that behave the same (docs/decisions/0111), so one budget (0011).
    rateLimitBudget: "updateDebt",
  });

export const updateDebt = updateEndpoint("updateDebt", "put");
export const patchDebt = updateEndpoint("patchDebt", "patch");

export const deleteDebt = endpoint({
  operationId: "deleteDebt",
  method: "delete",
  path: `${API_PREFIX}/debts/{id}`,
  scope: "debts:write",
  tags: ["Debts"],
  summary: "Delete a debt",
  description:
    "Deletes the debt permanently with its followups; its payment history is kept. A debt managed by a campaign's " +
    "snapshots is 403; an unknown, foreign or invalid id is 404.",
  params: DebtIdParams,
  success: { status: 200, description: "Deleted; message `Debt deleted successfully`", schema: MessageEnvelope },
  errors: [
    ...protectedErrors("debts:write"),
    errorCases.debtAccessDenied,
    errorCases.notFound(debtMessages.notFoundOrInvalid),
  ],
  rateLimit: "write",
});
