/** GET /debtors: the company's debtors, oldest first, with their debt ids. */
import type { Endpoints } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { pageOfRows } from "../../http/page-of-rows.ts";
import { companyDebtors, presentDebtor, withDebtorFields } from "./debtor-query.ts";

export const listDebtors: HandlerOf<Endpoints["listDebtors"]> = async ({ query, principal, services }) => {
  const { db, ids } = services;
  const { rows, pagination } = await pageOfRows(
    db,
    companyDebtors(db, principal.companyId),
    (debtors) => withDebtorFields(debtors, principal.companyId).orderBy("p.id"),
    query,
  );
  return {
    body: {
      error: false,
      data: rows.map((row) => presentDebtor(ids, row)),
      pagination,
    },
  };
};
