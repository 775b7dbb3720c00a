/**
 * A todo's public shape (a debtor request or an AI detection in the review
 * queue, docs/decisions/0680), shared by the api's responses and the `data`
 * of `debtor_request.created` and `todo.reviewed`. A plan proposal's
 * `content` is shown in major units of the debt's currency, as every amount
 * of the api; any other content as the debtor's page recorded it. A
 * dispute's attachment is named, typed and sized here; the api adds its
 * one-hour link, which a webhook event does not carry (it could expire
 * before a retry).
 */
import { Either, Schema } from "effect";
import { Money, Review } from "@dc/domain";
import type { Db } from "../../executor.ts";
import { findTodos, type TodoKey, type TodoRow } from "../../todos/todo-rows.ts";
import { type EventIds, isoOffset } from "./wire.ts";

const decodeProposal = Schema.decodeUnknownEither(Review.PlanProposal);

const contentOf = (row: Pick<TodoRow, "type" | "content" | "currency">): unknown => {
  if (row.type !== "payment_plan") return row.content;
  const proposal = decodeProposal(row.content);
  if (Either.isLeft(proposal)) return row.content;
  return {
    currency: row.currency,
    installments: proposal.right.installments.map((item) => ({
      amount: Money.fromMinor(item.amount_minor, row.currency),
      payment_date: item.payment_date,
    })),
  };
};

/**
 * The public fields of a todo. `Time` is how timestamps appear: Dates for
 * the api (its response schema formats them), wire strings for webhook
 * payloads.
 */
export const presentTodoRow = <Time>(ids: EventIds, row: TodoRow, time: (date: Date) => Time) => ({
  id: ids.encode(row.source, row.id),
  source: row.source,
  type: row.type,
  review_status: row.review_status,
  blocking: row.blocking,
  debt_id: ids.encode("debt", row.debt_id),
  followup_id: row.followup_id === null ? null : ids.encode("followup", row.followup_id),
  message: row.message,
  content: contentOf(row) as Readonly<Record<string, unknown>> | null,
  attachment:
    row.attachment_name === null || row.attachment_type === null || row.attachment_size === null
      ? null
      : { name: row.attachment_name, content_type: row.attachment_type, size: row.attachment_size },
  note: row.review_note,
  created_at: time(row.created_at),
  reviewed_at: row.reviewed_at === null ? null : time(row.reviewed_at),
});

/** Key of a todo in the maps below: its source and id. */
export const todoKeyText = (key: TodoKey): string => `${key.source}:${key.id}`;

/** The `data` of each todo of `keys` (of `companyId`), keyed by `todoKeyText`. One statement. */
export const todoEventData = async (
  db: Db,
  ids: EventIds,
  companyId: number,
  keys: ReadonlyArray<TodoKey>,
): Promise<Map<string, Record<string, unknown>>> => {
  const rows = await findTodos(db, companyId, keys);
  return new Map(rows.map((row) => [todoKeyText(row), presentTodoRow(ids, row, isoOffset)]));
};
