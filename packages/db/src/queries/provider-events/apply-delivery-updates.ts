/**
 * Moves followups already sent on along their providers' delivery reports,
 * one statement for all (docs/decisions/0630): `sent` -> `delivered` or
 * `failed`, the provider's error kept in `notes`. A report never moves a
 * followup backwards: `sent` ranks below `delivered` and `failed`, which are
 * final, so a late `sent` after `delivered` changes nothing, and a report
 * for a followup in any other status (not sent yet, cancelled) neither.
 * Returns the followups that changed, for their `followup.updated` events.
 */
import { sql } from "kysely";
import { integerArray, textArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export interface DeliveryUpdateRecord {
  readonly followupId: number;
  readonly status: "sent" | "delivered" | "failed";
  /** Kept in `notes` for a failure: `<provider> error <code>: <message>`. */
  readonly notes: string | null;
}

export const applyDeliveryUpdates = async (
  trx: DbTransaction,
  companyId: number,
  updates: ReadonlyArray<DeliveryUpdateRecord>,
  now: Date,
): Promise<ReadonlyArray<number>> => {
  if (updates.length === 0) return [];
  // Several reports of one followup in a batch: the highest rank wins (a failure over a delivery of the same rank: the later report).
  const { rows } = await sql<{ id: number }>`
    with reported as (
      select distinct on (i.followup_id) i.followup_id, i.status, i.notes
      from unnest(
        ${integerArray(updates.map((u) => u.followupId))}::int8[],
        ${textArray(updates.map((u) => u.status))}::text[],
        ${textArray(updates.map((u) => u.notes))}::text[]
      ) with ordinality as i (followup_id, status, notes, position)
      order by i.followup_id, (i.status <> 'sent') desc, i.position desc
    )
    update followups f
    set status = r.status, notes = coalesce(r.notes, f.notes), updated_at = ${now.toISOString()}::timestamptz
    from reported r
    where f.company_id = ${companyId}::int8 and f.id = r.followup_id
      and f.status = 'sent' and r.status <> 'sent'
    returning f.id
  `.execute(trx);
  return rows.map((row) => row.id);
};
