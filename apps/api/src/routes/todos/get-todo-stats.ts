/**
 * GET /todos/stats: every count of contract 2.6 from real rows, in one
 * statement (aggregates with FILTER over payment plans and over the union of
 * debtor requests and AI detections). Counting rules: docs/decisions/0156.
 */
import { type Endpoints, todoMessages } from "@dc/contract";
import { countTodos } from "@dc/db";
import type { HandlerOf } from "../../http/handler.ts";
import { periodStart, utcDay } from "./period.ts";

export const getTodoStats: HandlerOf<Endpoints["getTodoStats"]> = async ({ query, principal, services }) => {
  const now = services.clock.now();
  const since = periodStart(query.period, now);
  const c = await countTodos(services.db, principal.companyId, since, utcDay(now));
  const disputes = (suggested: number, validated: number, rejected: number) => ({
    total: suggested + validated + rejected,
    by_status: { suggested, validated, rejected },
  });
  const stats = {
    agreements: {
      total: c.agreements_total,
      active: c.agreements_active,
      pending: c.agreements_pending,
      overdue: c.agreements_overdue,
    },
    debtor_requests: {
      total: c.requests_total,
      by_type: {
        portal_dispute: c.requests_portal_dispute,
        hardship: c.requests_hardship,
        payment_plan: c.requests_payment_plan,
      },
    },
    ai_detections: {
      total: c.detections_total,
      by_type: { ai_dispute: c.detections_ai_dispute, objection: c.detections_objection },
    },
    blocking_disputes: disputes(c.blocking_suggested, c.blocking_validated, c.blocking_rejected),
    non_blocking_disputes: disputes(c.non_blocking_suggested, c.non_blocking_validated, c.non_blocking_rejected),
    // The dispute keys are views of requests and detections, so they are not added again.
    total: { all: c.agreements_total + c.requests_total + c.detections_total },
  };
  return { body: { error: false, message: todoMessages.stats, data: { period: query.period, since, stats } } };
};
