/**
 * Followups (contract 4.6 and 4.8): create, list (with filters), list by
 * debt, read and update. Choices the contract leaves open are recorded in
 * docs/decisions/0150 to 0153.
 */
import { Followup as Rules } from "@dc/domain";
import { Schema } from "effect";
import { API_PREFIX, DEFAULT_JSON_BODY_BYTES, endpoint } from "../endpoint.ts";
import { DataEnvelope, ListEnvelope } from "../envelopes.ts";
import { errorCases, jsonBodyErrors, messages, protectedErrors } from "../errors.ts";
import { PlainDate } from "../formats.ts";
import { paginationFields } from "../pagination.ts";
import { Followup, FollowupCreate, FollowupUpdate } from "./followup-fields.ts";
import { pathParams, queryParams } from "./request-parts.ts";

export const followupMessages = {
  created: "Followup created successfully",
  retrieved: "Followup retrieved successfully",
  updated: "Followup updated successfully",
  notFound: "Followup not found",
} as const;

const FollowupEnvelope = DataEnvelope(Followup).annotations({ identifier: "FollowupResponse" });
const FollowupList = ListEnvelope(Followup).annotations({ identifier: "FollowupList" });

const IdParams = pathParams(Schema.Struct({ id: Schema.String.annotations({ description: "Encrypted followup id" }) }));
const DebtParams = pathParams(
  Schema.Struct({ debtId: Schema.String.annotations({ description: "Encrypted debt id" }) }),
);

const dateFilter = (description: string) =>
  Schema.optionalWith(
    PlainDate.annotations({ message: () => "must be a real calendar date in the format YYYY-MM-DD", description }),
    { exact: true },
  );

/** Filters shared by the two followup lists (docs/decisions/0151). */
const filterFields = {
  ...paginationFields,
  status: Schema.optionalWith(Rules.FollowupStatus.annotations({ description: "Only followups in this status" }), {
    exact: true,
  }),
  type: Schema.optionalWith(Rules.FollowupType.annotations({ description: "Only followups of this type" }), {
    exact: true,
  }),
  date_from: dateFilter("Only followups created on or after this UTC day (inclusive)"),
  date_to: dateFilter("Only followups created on or before this UTC day (inclusive)"),
};

export const FollowupListQuery = queryParams(
  Schema.Struct({
    ...filterFields,
    debt_id: Schema.optionalWith(
      Schema.String.annotations({
        description: "Only followups of this debt (encrypted id); another company's debt matches nothing",
      }),
      { exact: true },
    ),
  }),
);
export type FollowupListQuery = typeof FollowupListQuery.Type;

export const FollowupsByDebtQuery = queryParams(Schema.Struct(filterFields));
export type FollowupsByDebtQuery = typeof FollowupsByDebtQuery.Type;

const jsonBody = <A, I>(schema: Schema.Schema<A, I>) => ({
  contentType: "application/json" as const,
  schema,
  maxBytes: DEFAULT_JSON_BODY_BYTES,
});

const bodyErrors = jsonBodyErrors();
const followupNotFound = errorCases.notFound(followupMessages.notFound);

export const createFollowup = endpoint({
  operationId: "createFollowup",
  method: "post",
  path: `${API_PREFIX}/followups`,
  scope: "followups:write",
  tags: ["Followups"],
  summary: "Create a followup",
  description:
    "Records a contact activity on a debt of the company. `status` defaults to `on_hold`. A call (manual calls " +
    "and voicemails included), SMS or WhatsApp followup recorded in an executed status consumes credits once. " +
    "Another company's debt is 403 `Access denied to this debt`; an unknown or invalid " +
    "debt id is 404 `Debt not found`. Answers 201.",
  body: jsonBody(FollowupCreate),
  success: { status: 201, description: "The created followup", schema: FollowupEnvelope },
  idempotencyKey: true,
  errors: [
    ...protectedErrors("followups:write"),
    ...bodyErrors,
    errorCases.debtAccessDenied,
    errorCases.notFound(messages.debtNotFound),
    errorCases.idempotencyKeyReused,
  ],
  rateLimit: "write",
});

export const listFollowups = endpoint({
  operationId: "listFollowups",
  method: "get",
  path: `${API_PREFIX}/followups`,
  scope: "followups:read",
  tags: ["Followups"],
  summary: "List followups",
  description:
    "The company's followups, newest first. Filters apply before pagination. `date_from`/`date_to` select by " +
    "creation day (UTC, inclusive). An invalid `debt_id` is a 400; a valid id of no debt of the company matches nothing.",
  query: FollowupListQuery,
  success: { status: 200, description: "A page of followups", schema: FollowupList },
  errors: [...protectedErrors("followups:read"), errorCases.validation],
  rateLimit: "read",
});

export const listFollowupsByDebt = endpoint({
  operationId: "listFollowupsByDebt",
  method: "get",
  path: `${API_PREFIX}/followups/debt/{debtId}`,
  scope: "followups:read",
  tags: ["Followups"],
  summary: "List the followups of a debt",
  description: "The followups of one debt of the company, newest first, with the same filters as the followup list.",
  params: DebtParams,
  query: FollowupsByDebtQuery,
  success: { status: 200, description: "A page of the debt's followups", schema: FollowupList },
  errors: [...protectedErrors("followups:read"), errorCases.validation, errorCases.notFound(messages.debtNotFound)],
  rateLimit: "read",
});

export const getFollowup = endpoint({
  operationId: "getFollowup",
  method: "get",
  path: `${API_PREFIX}/followups/{id}`,
  scope: "followups:read",
  tags: ["Followups"],
  summary: "Read a followup",
  description: "One followup of the company. Media URLs are pre-signed for 1 hour.",
  params: IdParams,
  success: { status: 200, description: "The followup", schema: FollowupEnvelope },
  errors: [...protectedErrors("followups:read"), followupNotFound],
  rateLimit: "read",
});

const updateDescription =
  "Updates any subset of a followup's fields (PUT and PATCH behave alike; an empty body is a 400). A followup " +
  "first recorded in an executed status is charged then, once.";

const updateEndpoint = <const Method extends "put" | "patch">(operationId: string, method: Method) =>
  endpoint({
    operationId,
    method,
    path: `${API_PREFIX}/followups/{id}`,
    scope: "followups:write",
    tags: ["Followups"],
    summary: "Update a followup",
    description: updateDescription,
    params: IdParams,
    body: jsonBody(FollowupUpdate),
    success: { status: 200, description: "The updated followup", schema: FollowupEnvelope },
    errors: [...protectedErrors("followups:write"), ...bodyErrors, followupNotFound],
    rateLimit: "write",
    // One operation (the contract's "update followups") under two methods, so one budget (docs/decisions/0011).
    rateLimitBudget: "updateFollowup",
  });

export const updateFollowup = updateEndpoint("updateFollowup", "put");
export const patchFollowup = updateEndpoint("patchFollowup", "patch");

export { Followup, FollowupCreate, FollowupUpdate };
