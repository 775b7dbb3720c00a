/** GET /creditors: the company's creditors, oldest first. */
import { type Endpoints, paginationOf } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { creditorColumns, presentCreditor } from "./creditor-json.ts";

export const listCreditors: HandlerOf<Endpoints["listCreditors"]> = async ({ query, principal, services }) => {
  const { db, ids } = services;
  const [count, rows] = await Promise.all([
    db
      .selectFrom("creditors")
      .select((eb) => eb.fn.countAll<number>().as("total"))
      .where("company_id", "=", principal.companyId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom("creditors")
      .select(creditorColumns)
      .where("company_id", "=", principal.companyId)
      .orderBy("id")
      .limit(query.limit)
      .offset((query.page - 1) * query.limit)
      .execute(),
  ]);
  return {
    body: {
      error: false,
      data: rows.map((row) => presentCreditor(ids, row)),
      pagination: paginationOf(query, Number(count.total)),
    },
  };
};
