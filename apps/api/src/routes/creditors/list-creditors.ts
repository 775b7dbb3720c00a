/** GET /creditors: the company's creditors, oldest first. */
import { type Endpoints, paginationOf } from "@dc/contract";
import { listCreditors as listCompanyCreditors } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { presentCreditor } from "../../presenters/present-creditor.ts";

export const listCreditors: HandlerOf<Endpoints["listCreditors"]> = async ({ query, principal, services }) => {
  const { rows, total } = await listCompanyCreditors(services.db, principal.companyId, query);
  return {
    body: {
      error: false,
      data: rows.map((row) => presentCreditor(services.ids, row)),
      pagination: paginationOf(query, total),
    },
  };
};
