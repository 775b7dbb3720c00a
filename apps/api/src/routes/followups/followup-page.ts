/**
 * What both followup lists share: the filters of the query, creation days
 * (UTC, inclusive) turned into instants, and the page read with its total
 * in one statement (`listFollowups`), by page number or by cursor. Both
 * lists bind their cursors to the same filters, so `GET /followups?debt_id=X`
 * and `GET /followups/debt/X` walk one list.
 */
import { type PaginationQuery } from "@dc/contract";
import { type FollowupResourceRow, followupOrder, listFollowups } from "@dc/db";
import type { Followup } from "@dc/domain";
import { ValidationFailed } from "../../http/api-error.ts";
import { listWalk, type Pagination } from "../../http/list-walk.ts";
import type { AppServices } from "../../services.ts";

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
): Promise<{ readonly rows: ReadonlyArray<FollowupResourceRow>; readonly pagination: Pagination }> => {
  if (filters.date_from !== undefined && filters.date_to !== undefined && filters.date_from > filters.date_to) {
    throw new ValidationFailed({ details: { date_to: "must not be before date_from" } });
  }
  const chosen = {
    ...(filters.debtId === undefined ? {} : { debtId: filters.debtId }),
    ...(filters.status === undefined ? {} : { status: filters.status }),
    ...(filters.type === undefined ? {} : { type: filters.type }),
    ...(filters.date_from === undefined ? {} : { createdFrom: startOfDay(filters.date_from) }),
    ...(filters.date_to === undefined
      ? {}
      : { createdBefore: new Date(startOfDay(filters.date_to).getTime() + DAY_MS) }),
  };
  const walk = listWalk(services, { companyId, list: "followups", filters: chosen, keyset: followupOrder }, filters);
  const page = await listFollowups(services.db, companyId, chosen, walk.request);
  return { rows: page.rows, pagination: walk.pagination(page) };
};
