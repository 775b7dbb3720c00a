/**
 * A page of what awaits review in a company, newest first, with its total:
 * debtor requests and AI detections still `suggested` (docs/decisions/0156),
 * in one statement over their union.
 */
import type { Db } from "../executor.ts";
import type { Keyset } from "../keyset.ts";
import { pageOfRows, type PageRequest } from "../page-of-rows.ts";

/**
 * Newest first; a debtor request and an AI detection created at the same
 * instant are told apart by their source, then by id.
 */
export const todoOrder: Keyset = [
  { column: "created_at", direction: "desc", kind: "instant" },
  { column: "source", direction: "asc", kind: "text" },
  { column: "id", direction: "desc", kind: "integer" },
];

export type TodoSource = "debtor_request" | "ai_detection";
export type TodoType = "portal_dispute" | "hardship" | "payment_plan" | "ai_dispute" | "objection";

export const listOpenTodos = (db: Db, companyId: number, page: PageRequest) => {
  const open = db
    .selectFrom("debtor_requests")
    .select((eb) => [
      eb.val<TodoSource>("debtor_request").as("source"),
      "id",
      eb.ref("type").$castTo<TodoType>().as("type"),
      "blocking",
      "debt_id",
      eb.cast<number | null>(eb.val(null), "bigint").as("followup_id"),
      "message",
      "created_at",
    ])
    .where("company_id", "=", companyId)
    .where("review_status", "=", "suggested")
    .unionAll(
      db
        .selectFrom("ai_detections")
        .select((eb) => [
          eb.val<TodoSource>("ai_detection").as("source"),
          "id",
          eb.ref("type").$castTo<TodoType>().as("type"),
          "blocking",
          "debt_id",
          "followup_id",
          "excerpt as message",
          "created_at",
        ])
        .where("company_id", "=", companyId)
        .where("review_status", "=", "suggested"),
    );
  return pageOfRows(
    db,
    db.selectFrom(open.as("todo")),
    (items) => items.selectAll(),
    todoOrder,
    page,
  );
};
