/** GET /followups/debt/{debtId}: the followups of one debt of the company. */
import { type Endpoints, messages } from "@dc/contract";
import { findDebtKey } from "@dc/db";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { followupPage } from "./followup-page.ts";
import { followupPresenter } from "../../presenters/present-followup.ts";

export const listFollowupsByDebt: HandlerOf<Endpoints["listFollowupsByDebt"]> = async ({
  params,
  query,
  principal,
  services,
  ctx,
}) => {
  const debtId = services.ids.decode("debt", params.debtId);
  const debt = debtId === undefined ? undefined : await findDebtKey(services.db, principal.companyId, debtId);
  if (debt === undefined) throw new NotFound({ message: messages.debtNotFound });
  const { rows, pagination } = await followupPage(services, principal.companyId, { ...query, debtId: debt.id });
  const present = followupPresenter(services, ctx);
  return { body: { error: false, data: rows.map(present), pagination } };
};
