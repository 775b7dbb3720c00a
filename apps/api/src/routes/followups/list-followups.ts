/** GET /followups: the company's followups, filtered and paginated. */
import type { Endpoints } from "@dc/contract";
import { ValidationFailed } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { followupPage } from "./followup-page.ts";
import { followupPresenter } from "../../presenters/present-followup.ts";

export const listFollowups: HandlerOf<Endpoints["listFollowups"]> = async ({ query, principal, services, ctx }) => {
  const { debt_id, ...filters } = query;
  let debtId: number | undefined;
  if (debt_id !== undefined) {
    debtId = services.ids.decode("debt", debt_id);
    // A forged or mistyped id is bad input; a valid id of another company's debt simply matches nothing.
    if (debtId === undefined) throw new ValidationFailed({ details: { debt_id: "must be a debt id" } });
  }
  const { rows, pagination } = await followupPage(services, principal.companyId, {
    ...filters,
    ...(debtId === undefined ? {} : { debtId }),
  });
  const present = followupPresenter(services, ctx);
  return { body: { error: false, data: rows.map(present), pagination } };
};
