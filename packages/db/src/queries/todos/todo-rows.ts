/**
 * The rows of the review queue: debtor requests and AI detections as one
 * relation (their union), each with the columns a todo's public shape needs,
 * the debt's currency included (a plan proposal's amounts are in its minor
 * units), and a dispute's attachment's name, type and size (docs/decisions/0674). The list, the reads after a review and the webhook payloads all
 * select from here.
 */
import type { DisputeAttachment, Review } from "@dc/domain";
import { sql } from "kysely";
import { integerArray } from "../array-literals.ts";
import type { Db } from "../executor.ts";

export interface TodoFilters {
  /** Only this review status; every status when undefined. */
  readonly status?: Review.Status | undefined;
  /** Only this type; every type when undefined. */
  readonly type?: Review.Type | undefined;
  /** Only these items (by source and key). */
  readonly items?: ReadonlyArray<TodoKey> | undefined;
}

/** A todo's identity: its table and its key there. */
export interface TodoKey {
  readonly source: Review.Source;
  readonly id: number;
}

const requestTypes: ReadonlyArray<string> = ["portal_dispute", "hardship", "payment_plan"];

/**
 * The union of the company's requests and detections that pass `filters`,
 * as a subquery to select from. A `type` filter skips the table that cannot
 * hold it; each branch reads its table through `(company_id, review_status,
 * created_at desc, id desc)` when a status is given.
 */
export const todoUnion = (db: Db, companyId: number, filters: TodoFilters) => {
  const keysOf = (source: Review.Source) =>
    filters.items?.filter((item) => item.source === source).map((item) => item.id);
  const requestKeys = keysOf("debtor_request");
  const detectionKeys = keysOf("ai_detection");
  const wantsRequests =
    (filters.type === undefined || requestTypes.includes(filters.type)) &&
    (requestKeys === undefined || requestKeys.length > 0);
  const wantsDetections =
    (filters.type === undefined || !requestTypes.includes(filters.type)) &&
    (detectionKeys === undefined || detectionKeys.length > 0);
  const requests = db
    .selectFrom("debtor_requests as r")
    .innerJoin("debts as d", (join) => join.onRef("d.company_id", "=", "r.company_id").onRef("d.id", "=", "r.debt_id"))
    .leftJoin("stored_objects as o", (join) =>
      join.onRef("o.company_id", "=", "r.company_id").onRef("o.debtor_request_id", "=", "r.id"),
    )
    .select((eb) => [
      eb.val<Review.Source>("debtor_request").as("source"),
      "r.id",
      eb.ref("r.type").$castTo<Review.Type>().as("type"),
      "r.review_status",
      "r.blocking",
      "r.debt_id",
      eb.cast<number | null>(eb.val(null), "bigint").as("followup_id"),
      "r.message",
      eb.ref("r.content").$castTo<unknown>().as("content"),
      "r.review_note",
      "r.created_at",
      "r.reviewed_at",
      "d.currency",
      "o.file_name as attachment_name",
      eb.ref("o.content_type").$castTo<DisputeAttachment.Type | null>().as("attachment_type"),
      // octet_length of a bytea reads its stored length without fetching the bytes.
      sql<number | null>`octet_length(o.body)`.as("attachment_size"),
    ])
    .where("r.company_id", "=", companyId)
    .$if(filters.status !== undefined, (q) => q.where("r.review_status", "=", filters.status!))
    .$if(filters.type !== undefined, (q) => q.where("r.type", "=", filters.type as "payment_plan"))
    .$if(requestKeys !== undefined, (q) => q.where(sql<boolean>`r.id = any (${integerArray(requestKeys!)}::int8[])`))
    .$if(!wantsRequests, (q) => q.where((eb) => eb.val(false)));
  const detections = db
    .selectFrom("ai_detections as a")
    .innerJoin("debts as d", (join) => join.onRef("d.company_id", "=", "a.company_id").onRef("d.id", "=", "a.debt_id"))
    .select((eb) => [
      eb.val<Review.Source>("ai_detection").as("source"),
      "a.id",
      eb.ref("a.type").$castTo<Review.Type>().as("type"),
      "a.review_status",
      "a.blocking",
      "a.debt_id",
      "a.followup_id",
      "a.excerpt as message",
      eb.cast<unknown>(eb.val(null), "jsonb").as("content"),
      "a.review_note",
      "a.created_at",
      "a.reviewed_at",
      "d.currency",
      eb.cast<string | null>(eb.val(null), "text").as("attachment_name"),
      eb.cast<DisputeAttachment.Type | null>(eb.val(null), "text").as("attachment_type"),
      eb.cast<number | null>(eb.val(null), "int4").as("attachment_size"),
    ])
    .where("a.company_id", "=", companyId)
    .$if(filters.status !== undefined, (q) => q.where("a.review_status", "=", filters.status!))
    .$if(filters.type !== undefined, (q) => q.where("a.type", "=", filters.type as "objection"))
    .$if(detectionKeys !== undefined, (q) =>
      q.where(sql<boolean>`a.id = any (${integerArray(detectionKeys!)}::int8[])`),
    )
    .$if(!wantsDetections, (q) => q.where((eb) => eb.val(false)));
  return requests.unionAll(detections);
};

/** The todos `keys` of the company as their public shape reads them, in no particular order. */
export const findTodos = (db: Db, companyId: number, keys: ReadonlyArray<TodoKey>) =>
  keys.length === 0 ? Promise.resolve([]) : todoUnion(db, companyId, { items: keys }).execute();

export type TodoRow = Awaited<ReturnType<typeof findTodos>>[number];
