/** GET /debtors: the company's debtors, oldest first, with their debt ids. */
import type { Endpoints } from "@dc/contract";
import { debtorOrder, listDebtors as listCompanyDebtors } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { listWalk } from "../../http/list-walk.ts";
import { presentDebtor } from "../../presenters/present-debtor.ts";

export const listDebtors: HandlerOf<Endpoints["listDebtors"]> = async ({ query, principal, services }) => {
  const walk = listWalk(services, { companyId: principal.companyId, list: "debtors", filters: {}, keyset: debtorOrder }, query);
  const page = await listCompanyDebtors(services.db, principal.companyId, walk.request);
  return {
    body: {
      error: false,
      data: page.rows.map((row) => presentDebtor(services.ids, row)),
      pagination: walk.pagination(page),
    },
  };
};
