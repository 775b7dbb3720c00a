/** GET /company/statistics: all-time counts of the company's debts and followups, in one query. */
import { companyMessages, type Endpoints, messages } from "@dc/contract";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";

export const getCompanyStatistics: HandlerOf<Endpoints["getCompanyStatistics"]> = async ({ principal, services }) => {
  const row = await services.db
    .selectFrom("companies as c")
    .select((eb) => [
      eb
        .selectFrom("debts")
        .select((sub) => sub.fn.countAll<number>().as("n"))
        .where("debts.company_id", "=", principal.companyId)
        .as("debts"),
      eb
        .selectFrom("followups")
        .select((sub) => sub.fn.countAll<number>().as("n"))
        .where("followups.company_id", "=", principal.companyId)
        .as("followups"),
    ])
    .where("c.id", "=", principal.companyId)
    .executeTakeFirst();
  if (row === undefined) throw new NotFound({ message: messages.companyNotFound });
  return {
    body: {
      error: false,
      message: companyMessages.statistics,
      data: { debts: { total: Number(row.debts) }, followups: { total: Number(row.followups) } },
    },
  };
};
