/**
 * Everything the send transaction re-reads for claimed followups
 * (DESIGN.md 8, docs/decisions/0603), in one statement: the followup, its
 * enrollment and the step of its version, the debt's status, balance and
 * contact fields, the company (clock, settings, credits, name), the
 * creditor's name, the debt's opt-outs and the debtor's own quiet hours, its executed contacts within the
 * longest window the company's caps and cooldown look at, the requests and
 * detections under review that hold it, and its active payment plan's next
 * pending installment.
 */
import { sql } from "kysely";
import { integerArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";
import { companyClock } from "../enrollments/company-clock.ts";
import type { ClaimedFollowup } from "./claim-due-followups.ts";

/** Followup statuses of an executed contact (they count in the guard's history). */
export const executedFollowupStatuses = [
  "sent",
  "delivered",
  "deal_found",
  "no_answer",
  "deal_not_found",
  "bad_behavior",
];

export interface SendContext {
  readonly id: number;
  readonly company_id: number;
  readonly debt_id: number;
  readonly enrollment_id: number;
  readonly run: number;
  readonly step: number;
  readonly attempt: number;
  readonly status: string;
  readonly due_at: Date;
  readonly scheduled_at: Date;
  readonly guard_reason: string | null;
  readonly guard_detail: string | null;
  readonly recipient: string | null;
  /** The provider's id of a send it accepted (docs/decisions/0630): the recovery polls the provider by it. */
  readonly provider_message_id: string | null;
  /** When the followup last changed (the injected clock): for a send left `in_progress`, when its send began. */
  readonly updated_at: Date;
  readonly timeline_version_id: number;
  readonly enrollment_state: "active" | "paused" | "stopped" | "completed";
  readonly enrollment_run: number;
  /** The step's stored definition (`{day_offset, channel, configuration, content}`); null when the version has no such step. */
  readonly step_definition: unknown;
  /** The version's stored `scheduling`. */
  readonly scheduling: unknown;
  readonly debt_status: string;
  readonly balance_minor: number;
  readonly amount_minor: number;
  readonly currency: string;
  readonly civility: string | null;
  readonly firstname: string | null;
  readonly lastname: string | null;
  readonly debtor_company: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  readonly country: string | null;
  readonly postal_code: string | null;
  readonly address: string | null;
  readonly street_address: string | null;
  readonly street_number: string | null;
  readonly city: string | null;
  readonly due_date: string | null;
  readonly payment_link: string | null;
  readonly invoice_reference: string | null;
  readonly object: string | null;
  readonly creditor_name: string | null;
  readonly company_name: string;
  readonly company_sandbox: boolean;
  /** The company's clock now. */
  readonly now: Date;
  readonly time_zone: string;
  readonly engine_settings: unknown;
  readonly current_credits: number;
  readonly opt_outs: ReadonlyArray<string>;
  /** Why the debt's e-mail address is undeliverable (a hard bounce or a complaint, migration 0043), or null. */
  readonly email_undeliverable: string | null;
  /** The quiet hours the debtor chose on the debtor page (`HH:MM`), or null. */
  readonly debtor_quiet_start: string | null;
  readonly debtor_quiet_end: string | null;
  /** Executed contacts: `{type, status, at}` (at: ISO text). */
  readonly history: ReadonlyArray<{ readonly type: string; readonly status: string; readonly at: string }>;
  /** Requests and detections under review that hold the debt: `{type}`. */
  readonly holds: ReadonlyArray<{ readonly type: string }>;
  readonly active_plan: boolean;
  /** `YYYY-MM-DD` of the active plan's earliest pending installment. */
  readonly next_installment: string | null;
}

/** Reads the send context of each claimed followup (rows of other states are returned too; the caller decides). */
export const loadSendContexts = async (
  trx: DbTransaction,
  claimed: ReadonlyArray<ClaimedFollowup>,
  now: Date,
): Promise<ReadonlyArray<SendContext>> => {
  if (claimed.length === 0) return [];
  const executed = `{${executedFollowupStatuses.join(",")}}`;
  const { rows } = await sql<SendContext>`
    with claimed as (
      select * from unnest(
        ${integerArray(claimed.map((c) => c.companyId))}::int8[],
        ${integerArray(claimed.map((c) => c.followupId))}::int8[]
      ) as k (company_id, id)
    )
    select f.id, f.company_id, f.debt_id, f.enrollment_id, f.run, f.step, f.attempt, f.status, f.due_at, f.scheduled_at,
      f.guard_reason, f.guard_detail, f.recipient, f.provider_message_id, f.updated_at,
      e.timeline_version_id, e.state as enrollment_state, e.run as enrollment_run,
      v.definition -> 'steps' -> f.step as step_definition, v.definition -> 'scheduling' as scheduling,
      d.status as debt_status, d.balance_minor, d.amount_minor, d.currency, d.civility, d.firstname, d.lastname,
      d.debtor_company, d.email, d.phone, d.country, d.postal_code, d.address, d.street_address, d.street_number, d.city,
      d.due_date, d.payment_link, d.invoice_reference, d.object,
      cr.name as creditor_name,
      c.name as company_name, c.sandbox as company_sandbox, clock.now, c.time_zone, c.engine_settings, c.current_credits,
      array(
        select o.channel from channel_opt_outs o where o.company_id = f.company_id and o.debt_id = f.debt_id
      ) as opt_outs,
      dp.quiet_start as debtor_quiet_start, dp.quiet_end as debtor_quiet_end,
      (
        select u.kind || ': ' || coalesce(u.detail, u.source) from email_undeliverable_addresses u
        where u.company_id = f.company_id and u.address = lower(btrim(d.email))
      ) as email_undeliverable,
      (
        select coalesce(jsonb_agg(jsonb_build_object('type', h.type, 'status', h.status, 'at', h.call_date)), '[]'::jsonb)
        from followups h
        where h.company_id = f.company_id and h.debt_id = f.debt_id and h.status = any (${executed}::text[])
          and h.call_date <= clock.now and h.call_date > clock.now - clock.horizon
      ) as history,
      (
        select coalesce(jsonb_agg(jsonb_build_object('type', r.type)), '[]'::jsonb)
        from (
          select q.type from debtor_requests q
          where q.company_id = f.company_id and q.debt_id = f.debt_id and q.review_status = 'suggested' and q.blocking
          union all
          select a.type from ai_detections a
          where a.company_id = f.company_id and a.debt_id = f.debt_id and a.review_status = 'suggested' and a.blocking
        ) r
      ) as holds,
      p.id is not null as active_plan,
      (
        select min(i.payment_date)::text from installments i
        where i.company_id = p.company_id and i.payment_plan_id = p.id and i.status = 'pending'
      ) as next_installment
    from claimed k
    join followups f on f.company_id = k.company_id and f.id = k.id
    join enrollments e on e.company_id = f.company_id and e.id = f.enrollment_id
    join timeline_versions v on v.company_id = e.company_id and v.id = e.timeline_version_id
    -- Primary-key lookups fenced (offset 0) from the planner's join ordering: with young statistics it
    -- otherwise read a company's debts once per followup through the company part of the key.
    cross join lateral (select * from debts d where d.company_id = f.company_id and d.id = f.debt_id offset 0) d
    cross join lateral (
      select cr.name from creditors cr where cr.company_id = d.company_id and cr.id = d.creditor_id offset 0
    ) cr
    cross join lateral (select * from companies c where c.id = f.company_id offset 0) c
    cross join lateral (
      select ${companyClock("c", now)} as now,
        make_interval(days => greatest(
          31,
          coalesce((select max((cap ->> 'window_days')::numeric) from jsonb_array_elements(
            case when jsonb_typeof(c.engine_settings -> 'caps') = 'array' then c.engine_settings -> 'caps' else '[]'::jsonb end
          ) cap), 0),
          coalesce((c.engine_settings ->> 'conversation_cooldown_days')::numeric, 0)
        )::int + 1) as horizon
    ) clock
    left join debtor_preferences dp on dp.company_id = f.company_id and dp.debt_id = f.debt_id
    left join payment_plans p on p.company_id = f.company_id and p.debt_id = f.debt_id and p.status = 'active'
  `.execute(trx);
  return rows;
};
