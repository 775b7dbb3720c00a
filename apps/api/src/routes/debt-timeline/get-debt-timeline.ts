/** GET /debts/{id}/timeline: where the debt stands on its timeline (docs/decisions/0622). */
import { debtTimelineErrorCodes, debtTimelineMessages, type Endpoints, messages } from "@dc/contract";
import { findDebtKey, findEnrollmentView } from "@dc/db";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { presentDebtTimeline } from "../../presenters/present-debt-timeline.ts";
import { debtKeyOf } from "./debt-timeline-state.ts";

export const getDebtTimeline: HandlerOf<Endpoints["getDebtTimeline"]> = async ({ params, principal, services }) => {
  const { companyId } = principal;
  const debtId = debtKeyOf(services, params.id);
  if ((await findDebtKey(services.db, companyId, debtId)) === undefined) {
    throw new NotFound({ message: messages.debtNotFound });
  }
  const view = await findEnrollmentView(services.db, { companyId, debtId, now: services.clock.now() });
  if (view === undefined) {
    throw new NotFound({
      message: debtTimelineMessages.notOnTimeline,
      errorCode: debtTimelineErrorCodes.notOnTimeline,
    });
  }
  return {
    body: {
      error: false,
      message: debtTimelineMessages.retrieved,
      data: presentDebtTimeline(services.ids, debtId, view),
    },
  };
};
