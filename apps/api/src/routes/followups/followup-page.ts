/**
 * The query behind both followup lists: the company's followups filtered by
 * debt, status, type and creation day (UTC, inclusive), newest first, with
 * the filtered total (filters apply before pagination, contract 4.9), read
 * in one statement by `pageOfRows`.
 */
import { type PaginationQuery } from "@dc/contract";
import type { Followup } from "@dc/domain";
import { ValidationFailed } from "../../http/api-error.ts";
import { pageOfRows } from "../../http/page-of-rows.ts";
import type { AppServices } from "../../services.ts";
import { followupColumns, type FollowupRecord } from "./present-followup.ts";

export interface FollowupFilters extends PaginationQuery {
  readonly debtId?: number;
  readonly status?: Followup.FollowupStatus;
  readonly type?: Followup.FollowupType;
  readonly date_from?: string;
  readonly date_to?: string;
}

const DAY_MS = 86_400_000;
const startOfDay = (day: string) => new Date(`${day}T00:00:00Z`);

export const followupPage = async (
  services: AppServices,
  companyId: number,
  filters: FollowupFilters,
): Promise<{ readonly rows: ReadonlyArray<FollowupRecord>; readonly total: number }> => {
  if (filters.date_from !== undefined && filters.date_to !== undefined && filters.date_from > filters.date_to) {
    throw new ValidationFailed({ details: { date_to: "must not be before date_from" } });
  }
  let query = services.db.selectFrom("followups").where("company_id", "=", companyId);
  if (filters.debtId !== undefined) query = query.where("debt_id", "=", filters.debtId);
  if (filters.status !== undefined) query = query.where("status", "=", filters.status);
  if (filters.type !== undefined) query = query.where("type", "=", filters.type);
  if (filters.date_from !== undefined) query = query.where("created_at", ">=", startOfDay(filters.date_from));
  if (filters.date_to !== undefined) {
    query = query.where("created_at", "<", new Date(startOfDay(filters.date_to).getTime() + DAY_MS));
  }
  const { rows, total } = await pageOfRows(
    services.db,
    query,
    (filtered) => filtered.select(followupColumns).orderBy("created_at", "desc").orderBy("id", "desc"),
    filters,
  );
  return { rows, total };
};
