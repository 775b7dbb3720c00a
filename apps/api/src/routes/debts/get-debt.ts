/** GET /debts/{id}: one debt of the company. */
import { debtMessages, type Endpoints, messages } from "@dc/contract";
import { findDebtView } from "@dc/db";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { readDebtLinks } from "../../debtor-page/links.ts";
import { presentDebt } from "../../presenters/present-debt.ts";

export const getDebt: HandlerOf<Endpoints["getDebt"]> = async ({ params, principal, services, ctx }) => {
  const debtId = services.ids.decode("debt", params.id);
  if (debtId === undefined) throw new NotFound({ message: messages.debtNotFound });
  const found = await findDebtView(services.reads, principal.companyId, debtId);
  if (found === undefined) throw new NotFound({ message: messages.debtNotFound });
  return {
    body: {
      error: false,
      message: debtMessages.retrieved,
      data: presentDebt(services.ids, found.view, found.collectionAgency, readDebtLinks(services, ctx)),
    },
  };
};
