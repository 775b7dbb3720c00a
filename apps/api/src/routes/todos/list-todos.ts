/**
 * GET /todos: what awaits review, newest first: debtor requests and AI
 * detections still `suggested` (docs/decisions/0156).
 */
import type { Endpoints } from "@dc/contract";
import { listOpenTodos, todoOrder } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { listWalk } from "../../http/list-walk.ts";
import { presentTodo } from "../../presenters/present-todo.ts";

export const listTodos: HandlerOf<Endpoints["listTodos"]> = async ({ query, principal, services }) => {
  const walk = listWalk(services, { companyId: principal.companyId, list: "todos", filters: {}, keyset: todoOrder }, query);
  const page = await listOpenTodos(services.db, principal.companyId, walk.request);
  return {
    body: {
      error: false,
      data: page.rows.map((row) => presentTodo(services.ids, row)),
      pagination: walk.pagination(page),
    },
  };
};
