/**
 * A page of a company's review queue, newest first, with its total:
 * debtor requests and AI detections of one review status (or all) and
 * optionally one type, in one statement over their union
 * (docs/decisions/0156, 0680).
 */
import type { Db } from "../executor.ts";
import type { Keyset } from "../keyset.ts";
import { pageOfRows, type PageRequest } from "../page-of-rows.ts";
import { type TodoFilters, todoUnion } from "./todo-rows.ts";

/**
 * Newest first; a debtor request and an AI detection created at the same
 * instant are told apart by their source, then by id.
 */
export const todoOrder: Keyset = [
  { column: "created_at", direction: "desc", kind: "instant" },
  { column: "source", direction: "asc", kind: "text" },
  { column: "id", direction: "desc", kind: "integer" },
];

export const listTodos = (db: Db, companyId: number, filters: Omit<TodoFilters, "items">, page: PageRequest) =>
  pageOfRows(
    db,
    db.selectFrom(todoUnion(db, companyId, filters).as("todo")),
    (items) => items.selectAll(),
    todoOrder,
    page,
  );
