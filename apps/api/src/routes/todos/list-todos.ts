/**
 * GET /todos: the review queue, newest first: debtor requests and AI
 * detections of one review status (`suggested` by default, `all` for every
 * status) and optionally one type (docs/decisions/0680).
 */
import type { Endpoints } from "@dc/contract";
import { listTodos as listCompanyTodos, todoOrder } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { listWalk } from "../../http/list-walk.ts";
import { todoPresenter } from "../../presenters/present-todo.ts";

export const listTodos: HandlerOf<Endpoints["listTodos"]> = async ({ query, principal, services, ctx }) => {
  const filters = { status: query.status === "all" ? undefined : query.status, type: query.type };
  const walk = listWalk(services, { companyId: principal.companyId, list: "todos", filters, keyset: todoOrder }, query);
  const page = await listCompanyTodos(services.db, principal.companyId, filters, walk.request);
  return {
    body: {
      error: false,
      data: page.rows.map(todoPresenter(services, ctx, principal.companyId)),
      pagination: walk.pagination(page),
    },
  };
};
