/** GET /debtors: the company's debtors, oldest first, with their debt ids. */
import { type Endpoints, paginationOf } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { debtorsOf, presentDebtor } from "./debtor-query.ts";

export const listDebtors: HandlerOf<Endpoints["listDebtors"]> = async ({ query, principal, services }) => {
  const { db, ids } = services;
  const [count, rows] = await Promise.all([
    db
      .selectFrom("debtors")
      .select((eb) => eb.fn.countAll<number>().as("total"))
      .where("company_id", "=", principal.companyId)
      .executeTakeFirstOrThrow(),
    debtorsOf(db, principal.companyId)
      .orderBy("p.id")
      .limit(query.limit)
      .offset((query.page - 1) * query.limit)
      .execute(),
  ]);
  return {
    body: {
      error: false,
      data: rows.map((row) => presentDebtor(ids, row)),
      pagination: paginationOf(query, Number(count.total)),
    },
  };
};
