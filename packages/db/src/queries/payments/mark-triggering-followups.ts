/**
 * Marks the followups that preceded payments (`triggered_payment`,
 * contract 2.4; docs/decisions/0659), in one statement for a set of
 * payments just recorded: a followup of the payment's debt is marked when
 * a person clicked one of its e-mail's tracked links, or its call reached
 * the debtor (`deal_found`, `deal_not_found`, `bad_behavior`), within the
 * `TRIGGER_WINDOW_HOURS` before the payment's `paid_at`. Only succeeded
 * payments of a positive amount count; a followup once marked stays marked.
 * Every place that records payments calls this with the new payments' ids;
 * a snapshot's application calls it once for all of the snapshot's
 * payments, after its last batch (docs/decisions/0692).
 */
import { sql } from "kysely";
import type { Database } from "../../schema.ts";
import type { Kysely } from "kysely";
import { textArray } from "../array-literals.ts";

/** How long before a payment a click or a reached call counts as having led to it. */
export const TRIGGER_WINDOW_HOURS = 72;

/** Statuses of a call in which the debtor was reached. */
const reachedStatuses = ["deal_found", "deal_not_found", "bad_behavior"];

/** The payments whose followups are marked: by id, or every payment a snapshot recorded. */
export type PaymentsToMark = { readonly paymentIds: ReadonlyArray<string> } | { readonly snapshotId: number };

/** How many followups were newly marked. */
export const markTriggeringFollowups = async (
  db: Kysely<Database>,
  companyId: number,
  payments: PaymentsToMark,
): Promise<number> => {
  if ("paymentIds" in payments && payments.paymentIds.length === 0) return 0;
  const recorded =
    "paymentIds" in payments
      ? sql`p.id = any (${textArray(payments.paymentIds)}::uuid[])`
      : sql`p.snapshot_id = ${payments.snapshotId}`;
  const { rows } = await sql<{ marked: number }>`
    with paid as (
      select p.debt_id, p.paid_at from payments p
      where p.company_id = ${companyId} and ${recorded} and p.status = 'succeeded' and p.amount_minor > 0
    ), triggering as (
      select c.followup_id as id from paid
      join email_clicks c on c.company_id = ${companyId} and c.debt_id = paid.debt_id
        and c.clicked_at <= paid.paid_at and c.clicked_at >= paid.paid_at - make_interval(hours => ${TRIGGER_WINDOW_HOURS})
      union
      select f.id from paid
      join followups f on f.company_id = ${companyId} and f.debt_id = paid.debt_id
        and f.type in ('call', 'manual_call') and f.status = any (${textArray(reachedStatuses)}::text[])
        and f.call_date <= paid.paid_at and f.call_date >= paid.paid_at - make_interval(hours => ${TRIGGER_WINDOW_HOURS})
    ), marked as (
      update followups f set triggered_payment = true
      from triggering t
      where f.company_id = ${companyId} and f.id = t.id and not f.triggered_payment
      returning 1
    )
    select count(*)::int4 as marked from marked
  `.execute(db);
  return rows[0]?.marked ?? 0;
};
