/**
 * POST /debts/{id}/timeline/restart (docs/decisions/0622): the debt starts
 * its timeline over on the timeline's current version, as a new run anchored
 * by its `timeline_start_mode`, whatever the state of the previous run, whose
 * waiting followup is cancelled (`enrollDebts` with `restart`). The debt's
 * `last_timeline_restart` changes, so `debt.updated` is recorded in the same
 * transaction.
 */
import { debtTimelineErrorCodes, debtTimelineMessages, type Endpoints } from "@dc/contract";
import { enrollDebts } from "@dc/db";
import { debtLinkSigner } from "../../debtor-page/links.ts";
import { Conflict } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { retriedTransaction } from "../../http/retried-transaction.ts";
import { presentDebtTimeline } from "../../presenters/present-debt-timeline.ts";
import { recordDebtEvents } from "../debts/debt-events.ts";
import { debtKeyOf, lockCompanyDebt, notOnTimeline, runOf } from "./debt-timeline-state.ts";

export const restartDebtTimeline: HandlerOf<Endpoints["restartDebtTimeline"]> = async ({
  params,
  principal,
  services,
  ctx,
}) => {
  const { companyId } = principal;
  const debtId = debtKeyOf(services, params.id);
  const now = services.clock.now();
  const view = await retriedTransaction(services.db, async (trx) => {
    const debt = await lockCompanyDebt(trx, companyId, debtId);
    if (debt.timeline_id === null) throw notOnTimeline();
    const enrolled = await enrollDebts(trx, { companyId, debtIds: [debtId], now, restart: true });
    // enrollDebts leaves out the debts no timeline runs for: paid, settled or cancelled ones.
    if (enrolled.length === 0) {
      throw new Conflict({ errorCode: debtTimelineErrorCodes.debtClosed, message: debtTimelineMessages.debtClosed });
    }
    await recordDebtEvents(trx, services.ids, debtLinkSigner(services, ctx), companyId, "debt.updated", [debtId], now);
    return runOf(trx, services, companyId, debtId);
  });
  return {
    body: {
      error: false,
      message: debtTimelineMessages.restarted,
      data: presentDebtTimeline(services.ids, debtId, view),
    },
  };
};
