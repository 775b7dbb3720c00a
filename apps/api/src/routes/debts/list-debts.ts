/** GET /debts: every debt of the company, filtered and paginated. */
import type { Endpoints } from "@dc/contract";
import type { HandlerOf } from "../../http/handler.ts";
import { debtListReply } from "./debt-page.ts";

export const listDebts: HandlerOf<Endpoints["listDebts"]> = ({ query, principal, services, ctx }) =>
  debtListReply(services, ctx, principal.companyId, { kind: "company" }, query);
