/**
 * Todos (contract 2.6, 4.7, 4.8): aggregate statistics over a period, and the
 * list of items awaiting review. Periods and counting rules:
 * docs/decisions/0156.
 */
import { Schema } from "effect";
import { API_PREFIX, endpoint } from "../endpoint.ts";
import { DataEnvelope, ListEnvelope } from "../envelopes.ts";
import { errorCases, protectedErrors } from "../errors.ts";
import { IsoOffsetDateTime } from "../formats.ts";
import { EncryptedId } from "../ids.ts";
import { PaginationQuery } from "../pagination.ts";

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

export const todoMessages = { stats: "Todo statistics retrieved successfully" } as const;

/** One item awaiting review: a debtor request or an AI detection still `suggested`. */
export const TodoItem = Schema.Struct({
  id: EncryptedId("debtor request or AI detection"),
  source: Schema.Literal("debtor_request", "ai_detection"),
  type: Schema.Literal("portal_dispute", "hardship", "payment_plan", "ai_dispute", "objection"),
  review_status: Schema.Literal("suggested"),
  blocking: Schema.Boolean,
  debt_id: EncryptedId("debt"),
  followup_id: Schema.NullOr(EncryptedId("followup")).annotations({
    description: "The followup an AI detection came from",
  }),
  message: Schema.NullOr(Schema.String).annotations({ description: "The debtor's message, or the detected excerpt" }),
  created_at: IsoOffsetDateTime,
}).annotations({ identifier: "TodoItem" });

export const listTodos = endpoint({
  operationId: "listTodos",
  method: "get",
  path: `${API_PREFIX}/todos`,
  scope: "debts:read",
  tags: ["Todos"],
  summary: "List the todos",
  description: "Debtor requests and AI detections awaiting review (`suggested`), newest first.",
  query: PaginationQuery,
  success: {
    status: 200,
    description: "A page of todos",
    schema: ListEnvelope(TodoItem).annotations({ identifier: "TodoList" }),
  },
  errors: [...protectedErrors("debts:read"), errorCases.validation],
  rateLimit: "read",
});
