/** GET /company/statistics: all-time counts of the company's debts and followups, in one query. */
import { companyMessages, type Endpoints, messages } from "@dc/contract";
import { countCompanyRecords } from "@dc/db";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";

export const getCompanyStatistics: HandlerOf<Endpoints["getCompanyStatistics"]> = async ({ principal, services }) => {
  const row = await countCompanyRecords(services.db, principal.companyId);
  if (row === undefined) throw new NotFound({ message: messages.companyNotFound });
  return {
    body: {
      error: false,
      message: companyMessages.statistics,
      data: { debts: { total: Number(row.debts) }, followups: { total: Number(row.followups) } },
    },
  };
};
