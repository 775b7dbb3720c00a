/**
 * A page of a company's followups filtered by debt, status, type and
 * creation instant, newest first, with the filtered total (filters apply
 * before pagination, contract 4.9), in one statement.
 */
import type { Db } from "../executor.ts";
import type { Keyset } from "../keyset.ts";
import { type Page, pageOfRows, type PageRequest } from "../page-of-rows.ts";
import { followupResourceColumns, type FollowupResourceRow } from "../webhooks/event-data/followup-data.ts";

export interface FollowupFilters {
  readonly debtId?: number;
  readonly status?: string;
  readonly type?: string;
  /** Created at or after. */
  readonly createdFrom?: Date;
  /** Created strictly before. */
  readonly createdBefore?: Date;
}

/**
 * Newest first: `(company_id, created_at desc, id desc)` and, for one debt's,
 * `(company_id, debt_id, created_at desc, id desc)` serve a page after a key.
 */
export const followupOrder: Keyset = [
  { column: "created_at", direction: "desc", kind: "instant" },
  { column: "id", direction: "desc", kind: "integer" },
];

export const listFollowups = (
  db: Db,
  companyId: number,
  filters: FollowupFilters,
  page: PageRequest,
): Promise<Page<FollowupResourceRow>> => {
  let query = db.selectFrom("followups").where("company_id", "=", companyId);
  if (filters.debtId !== undefined) query = query.where("debt_id", "=", filters.debtId);
  if (filters.status !== undefined) query = query.where("status", "=", filters.status);
  if (filters.type !== undefined) query = query.where("type", "=", filters.type);
  if (filters.createdFrom !== undefined) query = query.where("created_at", ">=", filters.createdFrom);
  if (filters.createdBefore !== undefined) query = query.where("created_at", "<", filters.createdBefore);
  return pageOfRows(
    db,
    query,
    (filtered) => filtered.select(followupResourceColumns),
    followupOrder,
    page,
  );
};
