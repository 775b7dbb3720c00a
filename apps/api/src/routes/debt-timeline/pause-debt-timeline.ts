/**
 * POST /debts/{id}/timeline/pause (docs/decisions/0622): the run of an active
 * or paused timeline pauses, until `until` on the company's clock or until a
 * resume; pausing again replaces `until` and `reason`. Its waiting followup
 * goes on hold in the same transaction (`pauseEnrollments`).
 */
import { debtTimelineMessages, type Endpoints } from "@dc/contract";
import { findCompanyClock, pauseEnrollments } from "@dc/db";
import { ValidationFailed } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { retriedTransaction } from "../../http/retried-transaction.ts";
import { presentDebtTimeline } from "../../presenters/present-debt-timeline.ts";
import { debtKeyOf, lockCompanyDebt, notRunning, runOf } from "./debt-timeline-state.ts";

/** Recorded as the run's reason when the pause gives none. */
export const DEFAULT_PAUSE_REASON = "paused";

export const pauseDebtTimeline: HandlerOf<Endpoints["pauseDebtTimeline"]> = async ({
  params,
  body,
  principal,
  services,
}) => {
  const { companyId } = principal;
  const debtId = debtKeyOf(services, params.id);
  const now = services.clock.now();
  const view = await retriedTransaction(services.db, async (trx) => {
    await lockCompanyDebt(trx, companyId, debtId);
    if (body.until !== undefined) {
      const clock = await findCompanyClock(trx, companyId, now);
      if (clock !== undefined && body.until.getTime() <= clock.now.getTime()) {
        throw new ValidationFailed({
          details: { until: `must be later than the company's clock now, ${clock.now.toISOString()}` },
        });
      }
    }
    const paused = await pauseEnrollments(trx, {
      companyId,
      debtIds: [debtId],
      until: body.until ?? null,
      reason: body.reason ?? DEFAULT_PAUSE_REASON,
      now,
    });
    const run = await runOf(trx, services, companyId, debtId);
    if (paused === 0) throw notRunning();
    return run;
  });
  return {
    body: { error: false, message: debtTimelineMessages.paused, data: presentDebtTimeline(services.ids, debtId, view) },
  };
};
