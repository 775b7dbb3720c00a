/**
 * GET /sandbox/messages: a page of what a sandbox company's channels would
 * have sent, newest first, optionally of one debt (404 for a live company).
 */
import type { Endpoints } from "@dc/contract";
import { listSandboxMessages as listMessages, sandboxMessageOrder } from "@dc/db";
import { ValidationFailed } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { listWalk } from "../../http/list-walk.ts";
import { presentSandboxMessage } from "../../presenters/present-sandbox.ts";
import { sandboxClockOf } from "./sandbox-clock.ts";

export const listSandboxMessages: HandlerOf<Endpoints["listSandboxMessages"]> = async ({
  query,
  principal,
  services,
}) => {
  const { companyId } = principal;
  await sandboxClockOf(services, companyId);
  let debtId: number | undefined;
  if (query.debt_id !== undefined) {
    debtId = services.ids.decode("debt", query.debt_id);
    // A forged or mistyped id is bad input; a valid id of another company's debt simply matches nothing.
    if (debtId === undefined) throw new ValidationFailed({ details: { debt_id: "must be a debt id" } });
  }
  const walk = listWalk(
    services,
    { companyId, list: "sandbox_messages", filters: { debt_id: debtId }, keyset: sandboxMessageOrder },
    query,
  );
  const page = await listMessages(services.db, { companyId, debtId }, walk.request);
  return {
    body: {
      error: false,
      data: page.rows.map((row) => presentSandboxMessage(services.ids, row)),
      pagination: walk.pagination(page),
    },
  };
};
