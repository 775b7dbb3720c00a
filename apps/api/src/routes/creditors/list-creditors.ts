/** GET /creditors: the company's creditors, oldest first. */
import type { Endpoints } from "@dc/contract";
import { listCreditors as listCompanyCreditors, creditorOrder } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { listWalk } from "../../http/list-walk.ts";
import { presentCreditor } from "../../presenters/present-creditor.ts";

export const listCreditors: HandlerOf<Endpoints["listCreditors"]> = async ({ query, principal, services }) => {
  const walk = listWalk(services, { companyId: principal.companyId, list: "creditors", filters: {}, keyset: creditorOrder }, query);
  const page = await listCompanyCreditors(services.db, principal.companyId, walk.request);
  return {
    body: {
      error: false,
      data: page.rows.map((row) => presentCreditor(services.ids, row)),
      pagination: walk.pagination(page),
    },
  };
};
