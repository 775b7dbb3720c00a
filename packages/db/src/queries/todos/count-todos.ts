/**
 * Every count of `GET /todos/stats` (contract 2.6) from real rows, in one
 * statement: aggregates with FILTER over payment plans and over the union of
 * debtor requests and AI detections created since `since` (all of them when
 * null). Counting rules: docs/decisions/0156.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";

export interface TodoCounts {
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

export const countTodos = async (
  db: Db,
  companyId: number,
  /** Only rows created at or after this instant; everything when null. */
  since: Date | null,
  /** Today's UTC day (`YYYY-MM-DD`): an installment pending before it is overdue. */
  today: string,
): Promise<TodoCounts> => {
  const company = companyId;
  const inPeriod = (column: string) => (since === null ? sql`true` : sql`${sql.ref(column)} >= ${since}::timestamptz`);
  const { rows } = await sql<TodoCounts>`
    with plans as (
      select p.status,
             coalesce(bool_or(i.status = 'paid'), false) as any_paid,
             coalesce(bool_or(i.status = 'pending' and i.payment_date < ${today}::date), false) as any_overdue
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
  `.execute(db);
  return rows[0]!;
};
