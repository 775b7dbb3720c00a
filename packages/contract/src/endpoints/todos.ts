/**
 * Todos (contract 2.6, 3.3, 4.7, 4.8): aggregate statistics over a period,
 * the review queue of debtor requests and AI detections, and their review
 * (validate or reject). Periods and counting rules: docs/decisions/0156;
 * the queue and what a review does: docs/decisions/0680.
 */
import { DisputeAttachment, Review } from "@dc/domain";
import { Schema } from "effect";
import { API_PREFIX, DEFAULT_JSON_BODY_BYTES, endpoint, type ErrorCase } from "../endpoint.ts";
import { DataEnvelope, ListEnvelope } from "../envelopes.ts";
import { errorCases, jsonBodyErrors, protectedErrors } from "../errors.ts";
import { IsoOffsetDateTime } from "../formats.ts";
import { EncryptedId } from "../ids.ts";
import { paginationFields } from "../pagination.ts";
import { pathParams, queryParams } from "./request-parts.ts";

export const todoPeriods = [
  "today",
  "last_7_days",
  "since_last_month",
  "last_30_days",
  "last_90_days",
  "all_time",
] as const;
export type TodoPeriod = (typeof todoPeriods)[number];

export const TodoPeriod = Schema.Literal(...todoPeriods).annotations({
  identifier: "TodoPeriod",
  message: () => ({ message: `must be one of: ${todoPeriods.join(", ")}`, override: true }),
});

const DEFAULT_PERIOD: TodoPeriod = "since_last_month";

export const TodoStatsQuery = Schema.Struct({
  period: Schema.optionalWith(
    TodoPeriod.annotations({
      description:
        "`today` (since 00:00 UTC), `last_7_days`/`last_30_days`/`last_90_days` (rolling), `since_last_month` " +
        "(since the first day of the previous calendar month, UTC), `all_time`",
      default: DEFAULT_PERIOD,
    }),
    { default: () => DEFAULT_PERIOD },
  ),
});

const Int = Schema.Int;
const ByStatus = Schema.Struct({ suggested: Int, validated: Int, rejected: Int });
const Disputes = Schema.Struct({ total: Int, by_status: ByStatus });

export const TodoStats = Schema.Struct({
  agreements: Schema.Struct({ total: Int, active: Int, pending: Int, overdue: Int }),
  debtor_requests: Schema.Struct({
    total: Int,
    by_type: Schema.Struct({ portal_dispute: Int, hardship: Int, payment_plan: Int }),
  }),
  ai_detections: Schema.Struct({ total: Int, by_type: Schema.Struct({ ai_dispute: Int, objection: Int }) }),
  blocking_disputes: Disputes.annotations({
    description: "Kept for backward compatibility; use debtor_requests and ai_detections",
  }),
  non_blocking_disputes: Disputes.annotations({
    description: "Kept for backward compatibility; use debtor_requests and ai_detections",
  }),
  total: Schema.Struct({ all: Int }),
}).annotations({ identifier: "TodoStats" });

export const TodoStatsData = Schema.Struct({
  period: TodoPeriod,
  since: Schema.NullOr(IsoOffsetDateTime).annotations({ description: "Start of the period; null for `all_time`" }),
  stats: TodoStats,
}).annotations({ identifier: "TodoStatsData" });

export const getTodoStats = endpoint({
  operationId: "getTodoStats",
  method: "get",
  path: `${API_PREFIX}/todos/stats`,
  scope: "debts:read",
  tags: ["Todos"],
  summary: "Read the todo statistics",
  description:
    "Counts of payment agreements, debtor requests and AI detections created in the period. " +
    "`blocking_disputes` and `non_blocking_disputes` are kept for backward compatibility.",
  query: TodoStatsQuery,
  success: {
    status: 200,
    description: "The statistics",
    schema: DataEnvelope(TodoStatsData).annotations({ identifier: "TodoStatsResponse" }),
  },
  errors: [...protectedErrors("debts:read"), errorCases.validation],
  rateLimit: "read",
});

export const todoMessages = {
  stats: "Todo statistics retrieved successfully",
  validated: "Todo validated successfully",
  rejected: "Todo rejected successfully",
  notFound: "Todo not found",
  alreadyReviewed: (status: "validated" | "rejected") => `Todo already ${status}`,
  proposalUnfit: "The payment plan proposal no longer fits the debt",
} as const;

export const todoErrorCodes = {
  alreadyReviewed: "todo_already_reviewed",
  proposalUnfit: "payment_plan_proposal_unfit",
} as const;

const oneOf = (values: ReadonlyArray<string>) => ({ message: `must be one of: ${values.join(", ")}`, override: true });

export const TodoType = Review.Type.annotations({ identifier: "TodoType", message: () => oneOf(Review.types) });
export const TodoReviewStatus = Review.Status.annotations({
  identifier: "TodoReviewStatus",
  message: () => oneOf(Review.statuses),
});

const statusFilters = [...Review.statuses, "all"] as const;
const DEFAULT_STATUS_FILTER = "suggested";

export const ListTodosQuery = queryParams(
  Schema.Struct({
    ...paginationFields,
    status: Schema.optionalWith(
      Schema.Literal(...statusFilters).annotations({
        message: () => oneOf(statusFilters),
        description: "Only todos in this review status; `all` for every status",
        default: DEFAULT_STATUS_FILTER,
      }),
      { default: () => DEFAULT_STATUS_FILTER },
    ),
    type: Schema.optionalWith(TodoType.annotations({ description: "Only todos of this type" }), { exact: true }),
  }),
);
export type ListTodosQuery = typeof ListTodosQuery.Type;

/** What a dispute's attachment is: the part of it webhook events carry too. */
export const todoAttachmentFields = {
  name: Schema.String.annotations({
    description: `The file's name as the debtor's browser gave it (without path, at most ${DisputeAttachment.maxNameLength} characters)`,
  }),
  content_type: Schema.Literal(...DisputeAttachment.types).annotations({
    description: "The file's type, as its content shows it (not as the browser declared it)",
  }),
  size: Schema.Int.annotations({ description: `Bytes, at most ${DisputeAttachment.maxBytes}` }),
};

export const TodoAttachment = Schema.Struct({
  ...todoAttachmentFields,
  url: Schema.String.annotations({
    description: "Pre-signed URL of this service that downloads the file, valid for 1 hour: read the todo again for a fresh one",
  }),
  url_expires_at: IsoOffsetDateTime.annotations({ description: "When `url` stops working" }),
}).annotations({
  identifier: "TodoAttachment",
  description: "The file the debtor attached to a dispute (docs/decisions/0674)",
});

/** A debtor request or an AI detection in the review queue. */
export const TodoItem = Schema.Struct({
  id: EncryptedId("debtor request or AI detection"),
  source: Schema.Literal(...Review.sources),
  type: TodoType,
  review_status: TodoReviewStatus,
  blocking: Schema.Boolean.annotations({
    description:
      "A blocking item holds the debt's timeline while it is `suggested`; a validated blocking dispute stops it",
  }),
  debt_id: EncryptedId("debt"),
  followup_id: Schema.NullOr(EncryptedId("followup")).annotations({
    description: "The followup an AI detection came from",
  }),
  message: Schema.NullOr(Schema.String).annotations({ description: "The debtor's message, or the detected excerpt" }),
  content: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })).annotations({
    description:
      "What the debtor's page recorded beside the message: for `payment_plan`, the proposed schedule " +
      "`{currency, installments: [{amount, payment_date}]}` (amounts in major units); for a dispute, its `reason`. " +
      "Null for an AI detection",
  }),
  attachment: Schema.NullOr(TodoAttachment).annotations({
    description: "The file the debtor attached to a `portal_dispute`; null when none",
  }),
  note: Schema.NullOr(Schema.String).annotations({ description: "The company's note of its review" }),
  created_at: IsoOffsetDateTime,
  reviewed_at: Schema.NullOr(IsoOffsetDateTime).annotations({ description: "When it was validated or rejected" }),
}).annotations({ identifier: "TodoItem" });

export const listTodos = endpoint({
  operationId: "listTodos",
  method: "get",
  path: `${API_PREFIX}/todos`,
  scope: "debts:read",
  tags: ["Todos"],
  summary: "List the todos",
  description:
    "The review queue: debtor requests (`portal_dispute`, `hardship`, `payment_plan`) and AI detections " +
    "(`ai_dispute`, `objection`), newest first. Without `status`, the todos awaiting review (`suggested`).",
  query: ListTodosQuery,
  success: {
    status: 200,
    description: "A page of todos",
    schema: ListEnvelope(TodoItem).annotations({ identifier: "TodoList" }),
  },
  errors: [...protectedErrors("debts:read"), errorCases.validation],
  rateLimit: "read",
});

export const TodoIdParams = pathParams(
  Schema.Struct({
    id: Schema.String.annotations({ description: "Encrypted todo id (a debtor request or an AI detection)" }),
  }),
);

export const ReviewTodo = Schema.Struct({
  note: Schema.optionalWith(
    Schema.String.pipe(
      Schema.maxLength(Review.maxNoteLength, { message: () => `must be at most ${Review.maxNoteLength} characters` }),
    ).annotations({ description: `The company's note of its review, at most ${Review.maxNoteLength} characters` }),
    { exact: true },
  ),
}).annotations({ identifier: "ReviewTodo" });

const TodoEnvelope = DataEnvelope(TodoItem).annotations({ identifier: "TodoResponse" });
const todoNotFound = errorCases.notFound(todoMessages.notFound);
const alreadyReviewed = (["validated", "rejected"] as const).map((status): ErrorCase => ({
  status: 409,
  message: todoMessages.alreadyReviewed(status),
  description: `The todo was ${status} before: a review is final and nothing is written`,
  envelope: "api",
  errorCode: todoErrorCodes.alreadyReviewed,
}));

const reviewErrors = (extra: ReadonlyArray<ErrorCase>): ReadonlyArray<ErrorCase> => [
  ...protectedErrors("debts:write"),
  ...jsonBodyErrors(),
  todoNotFound,
  ...alreadyReviewed,
  ...extra,
];

const reviewBody = { contentType: "application/json" as const, schema: ReviewTodo, maxBytes: DEFAULT_JSON_BODY_BYTES };

export const validateTodo = endpoint({
  operationId: "validateTodo",
  method: "post",
  path: `${API_PREFIX}/todos/{id}/validate`,
  scope: "debts:write",
  tags: ["Todos"],
  summary: "Validate a todo",
  description:
    "Accepts a `suggested` todo, with an optional note (send `{}` for none), and acts on the debt in the same " +
    "transaction: a `payment_plan` proposal becomes the debt's active plan (its installments hold the timeline while " +
    "they are kept); a blocking dispute marks the debt disputed and stops its timeline; a `hardship` pauses the " +
    `timeline for ${Review.hardshipPauseDays} days; a non-blocking dispute or an objection lifts its hold. ` +
    "Answers with the todo.",
  params: TodoIdParams,
  body: reviewBody,
  success: { status: 200, description: "The todo, validated", schema: TodoEnvelope },
  errors: reviewErrors([
    {
      status: 409,
      message: todoMessages.proposalUnfit,
      description:
        "A `payment_plan` proposal whose installments no longer add up to the debt's balance (a payment arrived " +
        "meanwhile): nothing is written; reject it and let the debtor propose again",
      envelope: "api",
      errorCode: todoErrorCodes.proposalUnfit,
    },
  ]),
  rateLimit: "write",
});

export const rejectTodo = endpoint({
  operationId: "rejectTodo",
  method: "post",
  path: `${API_PREFIX}/todos/{id}/reject`,
  scope: "debts:write",
  tags: ["Todos"],
  summary: "Reject a todo",
  description:
    "Turns down a `suggested` todo, with an optional note (send `{}` for none): it no longer holds the debt's " +
    "timeline, which goes on at the next instant the compliance guard allows. Answers with the todo.",
  params: TodoIdParams,
  body: reviewBody,
  success: { status: 200, description: "The todo, rejected", schema: TodoEnvelope },
  errors: reviewErrors([]),
  rateLimit: "write",
});
