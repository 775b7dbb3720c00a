/**
 * GET /todos: what awaits review, newest first: debtor requests and AI
 * detections still `suggested` (docs/decisions/0156).
 */
import { type Endpoints, paginationOf } from "@dc/contract";
import { listOpenTodos } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { presentTodo } from "../../presenters/present-todo.ts";

export const listTodos: HandlerOf<Endpoints["listTodos"]> = async ({ query, principal, services }) => {
  const { rows, total } = await listOpenTodos(services.db, principal.companyId, query);
  return {
    body: {
      error: false,
      data: rows.map((row) => presentTodo(services.ids, row)),
      pagination: paginationOf(query, total),
    },
  };
};
