/**
 * GET /todos: what awaits review, newest first: debtor requests and AI
 * detections still `suggested` (docs/decisions/0156).
 */
import { type Endpoints, paginationOf } from "@dc/contract";
import { listOpenTodos } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";

export const listTodos: HandlerOf<Endpoints["listTodos"]> = async ({ query, principal, services }) => {
  const { rows, total } = await listOpenTodos(services.db, principal.companyId, query);
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
      pagination: paginationOf(query, total),
    },
  };
};
