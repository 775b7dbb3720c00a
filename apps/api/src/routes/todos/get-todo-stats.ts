/**
 * GET /todos/stats: every count of contract 2.6 from real rows, in one
 * statement (aggregates with FILTER over payment plans and over the union of
 * debtor requests and AI detections). Counting rules: docs/decisions/0156.
 */
import { type Endpoints, todoMessages } from "@dc/contract";
import { sql } from "kysely";
import type { HandlerOf } from "../../http/handler.ts";
import { periodStart, utcDay } from "./period.ts";

interface Counts {
  agreements_total: number;
  agreements_active: number;
  agreements_pending: number;
  agreements_overdue: number;
  requests_total: number;
  requests_portal_dispute: number;
  requests_hardship: number;
  requests_payment_plan: number;
  detections_total: number;
  detections_ai_dispute: number;
  detections_objection: number;
  blocking_suggested: number;
  blocking_validated: number;
  blocking_rejected: number;
  non_blocking_suggested: number;
  non_blocking_validated: number;
  non_blocking_rejected: number;
}

export const getTodoStats: HandlerOf<Endpoints["getTodoStats"]> = async ({ query, principal, services }) => {
  const now = services.clock.now();
  const since = periodStart(query.period, now);
  const company = principal.companyId;
  const inPeriod = (column: string) => (since === null ? sql`true` : sql`${sql.ref(column)} >= ${since}::timestamptz`);

  const { rows } = await sql<Counts>`
    with plans as (
      select p.status,
             coalesce(bool_or(i.status = 'paid'), false) as any_paid,
             coalesce(bool_or(i.status = 'pending' and i.payment_date < ${utcDay(now)}::date), false) as any_overdue
      from payment_plans p
      left join installments i on i.company_id = p.company_id and i.payment_plan_id = p.id
      where p.company_id = ${company} and ${inPeriod("p.created_at")}
      group by p.id, p.status
    ), reviews as (
      select 'request' as source, type, review_status, blocking, type = 'portal_dispute' as dispute
      from debtor_requests where company_id = ${company} and ${inPeriod("created_at")}
      union all
      select 'detection', type, review_status, blocking, type = 'ai_dispute'
      from ai_detections where company_id = ${company} and ${inPeriod("created_at")}
    )
    select a.*, r.* from (
      select count(*) as agreements_total,
             count(*) filter (where status = 'active') as agreements_active,
             count(*) filter (where status = 'active' and not any_paid and not any_overdue) as agreements_pending,
             count(*) filter (where status = 'active' and any_overdue) as agreements_overdue
      from plans
    ) a cross join (
      select count(*) filter (where source = 'request') as requests_total,
             count(*) filter (where source = 'request' and type = 'portal_dispute') as requests_portal_dispute,
             count(*) filter (where source = 'request' and type = 'hardship') as requests_hardship,
             count(*) filter (where source = 'request' and type = 'payment_plan') as requests_payment_plan,
             count(*) filter (where source = 'detection') as detections_total,
             count(*) filter (where source = 'detection' and type = 'ai_dispute') as detections_ai_dispute,
             count(*) filter (where source = 'detection' and type = 'objection') as detections_objection,
             count(*) filter (where dispute and blocking and review_status = 'suggested') as blocking_suggested,
             count(*) filter (where dispute and blocking and review_status = 'validated') as blocking_validated,
             count(*) filter (where dispute and blocking and review_status = 'rejected') as blocking_rejected,
             count(*) filter (where dispute and not blocking and review_status = 'suggested') as non_blocking_suggested,
             count(*) filter (where dispute and not blocking and review_status = 'validated') as non_blocking_validated,
             count(*) filter (where dispute and not blocking and review_status = 'rejected') as non_blocking_rejected
      from reviews
    ) r
  `.execute(services.db);
  const c = rows[0]!;
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
