/**
 * Records bounces and complaints of e-mails (an SMTP delivery status
 * notification, or a provider's webhook; docs/decisions/0658), in one
 * statement for all: a hard bounce or a complaint marks its address
 * undeliverable for the company (`email_undeliverable_addresses`, lower
 * case; a later report replaces the earlier one), which the engine's guard
 * reads before every e-mail step; a hard bounce of a followup still `sent`
 * fails it, with the report's detail in `notes`. Soft bounces change
 * nothing: the next step tries again.
 */
import { sql } from "kysely";
import { integerArray, textArray } from "../array-literals.ts";
import type { Db } from "../executor.ts";

export interface EmailBounce {
  readonly companyId: number;
  /** The followup whose e-mail bounced, when the report names one. */
  readonly followupId: number | null;
  readonly address: string;
  readonly kind: "bounce" | "complaint";
  readonly source: "dsn" | "postmark";
  readonly detail: string;
}

/** How many addresses were marked and followups failed. */
export const recordEmailBounces = async (
  db: Db,
  bounces: ReadonlyArray<EmailBounce>,
  now: Date,
): Promise<{ readonly addresses: number; readonly failed: number }> => {
  if (bounces.length === 0) return { addresses: 0, failed: 0 };
  const stamp = now.toISOString();
  const { rows } = await sql<{ addresses: number; failed: number }>`
    with report as (
      select distinct on (r.company_id, lower(r.address)) r.company_id, r.followup_id, lower(r.address) as address,
        r.kind, r.source, r.detail
      from unnest(${integerArray(bounces.map((b) => b.companyId))}::int8[],
        ${integerArray(bounces.map((b) => b.followupId))}::int8[], ${textArray(bounces.map((b) => b.address.trim()))}::text[],
        ${textArray(bounces.map((b) => b.kind))}::text[], ${textArray(bounces.map((b) => b.source))}::text[],
        ${textArray(bounces.map((b) => b.detail))}::text[]) as r(company_id, followup_id, address, kind, source, detail)
      where exists (select from companies c where c.id = r.company_id)
      order by r.company_id, lower(r.address), r.kind desc
    ), marked as (
      insert into email_undeliverable_addresses (company_id, address, kind, source, detail, recorded_at)
      select company_id, address, kind, source, detail, ${stamp}::timestamptz from report
      on conflict (company_id, address) do update
        set kind = excluded.kind, source = excluded.source, detail = excluded.detail, recorded_at = excluded.recorded_at
      returning 1
    ), failed as (
      update followups f
      set status = 'failed', notes = 'bounced: ' || r.detail, updated_at = ${stamp}::timestamptz
      from report r
      where f.company_id = r.company_id and f.id = r.followup_id and r.kind = 'bounce'
        and f.type = 'email' and f.status = 'sent'
      returning 1
    )
    select (select count(*) from marked)::int4 as addresses, (select count(*) from failed)::int4 as failed
  `.execute(db);
  return rows[0] ?? { addresses: 0, failed: 0 };
};
