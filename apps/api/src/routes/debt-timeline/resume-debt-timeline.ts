/**
 * POST /debts/{id}/timeline/resume (docs/decisions/0622): a paused run, or one
 * waiting for a manual start, becomes active (`resumeEnrollments` reschedules
 * a step whose time passed at the next allowed instant); an active run is
 * left as it is; a stopped or completed one is refused. It also lifts the
 * holds of the debt's AI-detected disputes awaiting review
 * (docs/decisions/0641): they stay in the review queue, no longer blocking.
 */
import { debtTimelineMessages, type Endpoints } from "@dc/contract";
import { liftDetectionHolds, resumeEnrollments } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { retriedTransaction } from "../../http/retried-transaction.ts";
import { presentDebtTimeline } from "../../presenters/present-debt-timeline.ts";
import { debtKeyOf, lockCompanyDebt, notRunning, runOf } from "./debt-timeline-state.ts";

export const resumeDebtTimeline: HandlerOf<Endpoints["resumeDebtTimeline"]> = async ({
  params,
  principal,
  services,
}) => {
  const { companyId } = principal;
  const debtId = debtKeyOf(services, params.id);
  const now = services.clock.now();
  const view = await retriedTransaction(services.db, async (trx) => {
    await lockCompanyDebt(trx, companyId, debtId);
    await resumeEnrollments(trx, { companyId, debtIds: [debtId], now });
    // A refused resume (stopped, completed) rolls this back with the rest.
    await liftDetectionHolds(trx, { companyId, debtIds: [debtId], now });
    const run = await runOf(trx, services, companyId, debtId);
    if (run.state !== "active") throw notRunning();
    return run;
  });
  return {
    body: {
      error: false,
      message: debtTimelineMessages.resumed,
      data: presentDebtTimeline(services.ids, debtId, view),
    },
  };
};
