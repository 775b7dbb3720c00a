/** GET /creditors: the company's creditors, oldest first. */
import type { Endpoints } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { pageOfRows } from "../../http/page-of-rows.ts";
import { creditorColumns, presentCreditor } from "./creditor-json.ts";

export const listCreditors: HandlerOf<Endpoints["listCreditors"]> = async ({ query, principal, services }) => {
  const { rows, pagination } = await pageOfRows(
    services.db,
    services.db.selectFrom("creditors").where("company_id", "=", principal.companyId),
    (creditors) => creditors.select(creditorColumns).orderBy("id"),
    query,
  );
  return { body: { error: false, data: rows.map((row) => presentCreditor(services.ids, row)), pagination } };
};
