/**
 * What the four debt lists share: the query's filters (docs/decisions/0109)
 * turned into the db's DebtFilters, one statement for page, group attributes
 * and total, by page number or by cursor (docs/decisions/0595), and the list
 * envelope. A cursor is bound to the scope and the filters as decoded, so
 * the by-creditor path and its alias walk one list.
 */
import { type DebtListQuery, instantOfFilter } from "@dc/contract";
import { debtOrder, type DebtFilters, type DebtScope, listDebtPage } from "@dc/db";
import { DebtStatus } from "@dc/domain";
import { NotFound, ValidationFailed } from "../../http/api-error.ts";
import { listWalk } from "../../http/list-walk.ts";
import type { AppServices } from "../../services.ts";
import type { Context } from "koa";
import { readDebtLinks } from "../../debtor-page/links.ts";
import { presentDebt } from "../../presenters/present-debt.ts";

export const filtersOf = (query: DebtListQuery): DebtFilters => {
  const details: Record<string, string> = {};
  if (query.amount_min !== undefined && query.amount_max !== undefined && query.amount_max < query.amount_min) {
    details["amount_max"] = "must be greater than or equal to amount_min";
  }
  const createdAfter = query.created_after === undefined ? undefined : instantOfFilter(query.created_after);
  const createdBefore = query.created_before === undefined ? undefined : instantOfFilter(query.created_before);
  if (createdAfter !== undefined && createdBefore !== undefined && createdBefore <= createdAfter) {
    details["created_before"] = "must be later than created_after";
  }
  if (Object.keys(details).length > 0) throw new ValidationFailed({ details });
  return {
    statuses: query.status === undefined ? undefined : DebtStatus.filterToStatuses(query.status),
    currency: query.currency,
    amountMin: query.amount_min,
    amountMax: query.amount_max,
    createdAfter,
    createdBefore,
    search: query.search,
  };
};

/** The list reply of `scope`; `notFoundMessage` is thrown when the scope's creditor or debtor is not the company's. */
export const debtListReply = async (
  services: AppServices,
  ctx: Context,
  companyId: number,
  scope: DebtScope,
  query: DebtListQuery,
  notFoundMessage?: string,
) => {
  const filters = filtersOf(query);
  const links = readDebtLinks(services, ctx);
  const walk = listWalk(services, { companyId, list: "debts", filters: { scope, filters }, keyset: debtOrder }, query);
  const start = "after" in walk.request ? { after: walk.request.after } : { offset: (walk.request.page - 1) * walk.request.limit };
  const page = await listDebtPage(services.reads, { companyId, scope, filters, limit: query.limit, ...start });
  if (!page.scopeFound && notFoundMessage !== undefined) throw new NotFound({ message: notFoundMessage });
  return {
    body: {
      error: false as const,
      data: page.rows.map((row) => presentDebt(services.ids, row, page.collectionAgency, links)),
      pagination: walk.pagination(page),
    },
  };
};
