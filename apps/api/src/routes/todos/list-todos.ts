/**
 * GET /todos: what awaits review, newest first: debtor requests and AI
 * detections still `suggested` (docs/decisions/0156).
 */
import type { Endpoints } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { pageOfRows } from "../../http/page-of-rows.ts";

type Source = "debtor_request" | "ai_detection";
type TodoType = "portal_dispute" | "hardship" | "payment_plan" | "ai_dispute" | "objection";

export const listTodos: HandlerOf<Endpoints["listTodos"]> = async ({ query, principal, services }) => {
  const { db } = services;
  const company = principal.companyId;
  const open = db
    .selectFrom("debtor_requests")
    .select((eb) => [
      eb.val<Source>("debtor_request").as("source"),
      "id",
      eb.ref("type").$castTo<TodoType>().as("type"),
      "blocking",
      "debt_id",
      eb.cast<number | null>(eb.val(null), "bigint").as("followup_id"),
      "message",
      "created_at",
    ])
    .where("company_id", "=", company)
    .where("review_status", "=", "suggested")
    .unionAll(
      db
        .selectFrom("ai_detections")
        .select((eb) => [
          eb.val<Source>("ai_detection").as("source"),
          "id",
          eb.ref("type").$castTo<TodoType>().as("type"),
          "blocking",
          "debt_id",
          "followup_id",
          "excerpt as message",
          "created_at",
        ])
        .where("company_id", "=", company)
        .where("review_status", "=", "suggested"),
    );
  const { rows, pagination } = await pageOfRows(
    db,
    db.selectFrom(open.as("todo")),
    (items) => items.selectAll().orderBy("created_at", "desc").orderBy("source").orderBy("id", "desc"),
    query,
  );
  const { ids } = services;
  return {
    body: {
      error: false,
      data: rows.map((row) => ({
        id: ids.encode(row.source, row.id),
        source: row.source,
        type: row.type,
        review_status: "suggested" as const,
        blocking: row.blocking,
        debt_id: ids.encode("debt", row.debt_id),
        followup_id: row.followup_id === null ? null : ids.encode("followup", row.followup_id),
        message: row.message,
        created_at: row.created_at,
      })),
      pagination,
    },
  };
};
