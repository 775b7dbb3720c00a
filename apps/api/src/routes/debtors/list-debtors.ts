/** GET /debtors: the company's debtors, oldest first, with their debt ids. */
import { type Endpoints, paginationOf } from "@dc/contract";
import { listDebtors as listCompanyDebtors } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { presentDebtor } from "../../presenters/present-debtor.ts";

export const listDebtors: HandlerOf<Endpoints["listDebtors"]> = async ({ query, principal, services }) => {
  const { rows, total } = await listCompanyDebtors(services.db, principal.companyId, query);
  return {
    body: {
      error: false,
      data: rows.map((row) => presentDebtor(services.ids, row)),
      pagination: paginationOf(query, total),
    },
  };
};
