/**
 * GET /debts/by-creditor/{creditorId} and its alias GET
 * /debts/creditor/{creditorId}: one creditor's debts; an unknown, foreign or
 * undecodable creditor id is 404.
 */
import { type Endpoints, messages } from "@dc/contract";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { debtListReply } from "./debt-page.ts";

export const listDebtsByCreditor: HandlerOf<Endpoints["listDebtsByCreditor"]> = ({
  params,
  query,
  principal,
  services,
  ctx,
}) => {
  const creditorId = services.ids.decode("creditor", params.creditorId);
  if (creditorId === undefined) throw new NotFound({ message: messages.creditorNotFound });
  return debtListReply(
    services, ctx,
    principal.companyId,
    { kind: "creditor", creditorId },
    query,
    messages.creditorNotFound,
  );
};
