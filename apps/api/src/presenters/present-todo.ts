/** A todo's wire form: a debtor request or an AI detection of the review queue (docs/decisions/0680). */
import type { Endpoints } from "@dc/contract";
import { type DomainIds as Ids, presentTodoRow, type TodoRow } from "@dc/db";

export type TodoView = Endpoints["listTodos"]["success"]["schema"]["Type"]["data"][number];

export const presentTodo = (ids: Ids, row: TodoRow): TodoView => presentTodoRow(ids, row, (date) => date);
