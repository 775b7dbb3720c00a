/** GET /debts/debtor/{debtorId}: the debts linked to one debtor of the company. */
import { debtorMessages, type Endpoints } from "@dc/contract";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { debtListReply } from "./debt-page.ts";

export const listDebtsByDebtor: HandlerOf<Endpoints["listDebtsByDebtor"]> = ({
  params,
  query,
  principal,
  services,
  ctx,
}) => {
  const debtorId = services.ids.decode("debtor", params.debtorId);
  if (debtorId === undefined) throw new NotFound({ message: debtorMessages.notFound });
  return debtListReply(services, ctx, principal.companyId, { kind: "debtor", debtorId }, query, debtorMessages.notFound);
};
