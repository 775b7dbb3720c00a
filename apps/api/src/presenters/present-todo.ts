/** A todo's wire form: an open debtor request or AI detection, so always `suggested` (docs/decisions/0156). */
import type { Endpoints } from "@dc/contract";
import type { DomainIds as Ids, listOpenTodos } from "@dc/db";

export type TodoView = Endpoints["listTodos"]["success"]["schema"]["Type"]["data"][number];
type TodoRow = Awaited<ReturnType<typeof listOpenTodos>>["rows"][number];

export const presentTodo = (ids: Ids, row: TodoRow): TodoView => ({
  id: ids.encode(row.source, row.id),
  source: row.source,
  type: row.type,
  review_status: "suggested" as const,
  blocking: row.blocking,
  debt_id: ids.encode("debt", row.debt_id),
  followup_id: row.followup_id === null ? null : ids.encode("followup", row.followup_id),
  message: row.message,
  created_at: row.created_at,
});
