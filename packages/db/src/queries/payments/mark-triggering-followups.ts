/**
 * Marks the followups that preceded payments (`triggered_payment`,
 * contract 2.4; docs/decisions/0659), in one statement for a set of
 * payments just recorded: a followup of the payment's debt is marked when
 * a person clicked one of its e-mail's tracked links, or its call reached
 * the debtor (`deal_found`, `deal_not_found`, `bad_behavior`), within the
 * `TRIGGER_WINDOW_HOURS` before the payment's `paid_at`. Only succeeded
 * payments of a positive amount count; a followup once marked stays marked.
 * Every place that records payments calls this with the new payments' ids.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { integerArray, textArray } from "../array-literals.ts";
import { KEY_PROBES, withPlannerSettings } from "../planner-settings.ts";

/** How long before a payment a click or a reached call counts as having led to it. */
export const TRIGGER_WINDOW_HOURS = 72;

/** Statuses of a call in which the debtor was reached. */
const reachedStatuses = ["deal_found", "deal_not_found", "bad_behavior"];

/**
 * How many followups were newly marked.
 *
 * Each payment, then each of its debt's clicks and calls, is found by its
 * own index probe, whatever the size of the company's ledger and followups
 * and whatever the statistics say of them (docs/decisions/0692): the
 * company travels as a column of the payments given, and every lookup is a
 * lateral subquery fenced by `offset 0`, which PostgreSQL can only run once
 * per outer row. A join it could reorder would let statistics that predate
 * the company price a scan of all its followups at one row. The statement
 * runs under `KEY_PROBES`: each lookup a plain index scan (a bitmap per
 * single-row lookup and a cache of keys that never repeat cost the
 * payments' lookup more than half the statement's time), and the marking
 * finds each followup by its primary key, not by a hash of all the
 * company's followups.
 */
export const markTriggeringFollowups = async (
  db: Kysely<Database>,
  companyId: number,
  paymentIds: ReadonlyArray<string>,
): Promise<number> => {
  if (paymentIds.length === 0) return 0;
  const window = sql`make_interval(hours => ${TRIGGER_WINDOW_HOURS})`;
  const marking = sql<{ marked: number }>`
    with paid as materialized (
      select p.company_id, p.debt_id, p.paid_at
      from unnest(${integerArray(paymentIds.map(() => companyId))}::int8[], ${textArray(paymentIds)}::uuid[])
        as i(company_id, id)
      cross join lateral (
        select p.company_id, p.debt_id, p.paid_at from payments p
        where p.company_id = i.company_id and p.id = i.id and p.status = 'succeeded' and p.amount_minor > 0
        offset 0
      ) p
    ), triggering as (
      select c.company_id, c.followup_id as id from paid
      cross join lateral (
        select c.company_id, c.followup_id from email_clicks c
        where c.company_id = paid.company_id and c.debt_id = paid.debt_id
          and c.clicked_at <= paid.paid_at and c.clicked_at >= paid.paid_at - ${window}
        offset 0
      ) c
      union
      select f.company_id, f.id from paid
      cross join lateral (
        select f.company_id, f.id from followups f
        where f.company_id = paid.company_id and f.debt_id = paid.debt_id
          and f.type in ('call', 'manual_call') and f.status = any (${textArray(reachedStatuses)}::text[])
          and f.call_date <= paid.paid_at and f.call_date >= paid.paid_at - ${window}
        offset 0
      ) f
    ), marked as (
      update followups f set triggered_payment = true
      from triggering t
      where f.company_id = t.company_id and f.id = t.id and not f.triggered_payment
      returning 1
    )
    select count(*)::int4 as marked from marked
  `;
  const { rows } = await withPlannerSettings(db, KEY_PROBES, (trx) => marking.execute(trx));
  return rows[0]?.marked ?? 0;
};
