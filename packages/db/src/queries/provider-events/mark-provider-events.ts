/** Marks applied provider events processed, with the followup each one concerned (null: none). One statement. */
import { sql } from "kysely";
import { integerArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export const markProviderEvents = async (
  trx: DbTransaction,
  companyId: number,
  events: ReadonlyArray<{ readonly id: number; readonly followupId: number | null }>,
  now: Date,
): Promise<void> => {
  if (events.length === 0) return;
  await sql`
    update provider_events e
    set processed_at = ${now.toISOString()}::timestamptz, followup_id = coalesce(i.followup_id, e.followup_id)
    from unnest(${integerArray(events.map((e) => e.id))}::int8[], ${integerArray(events.map((e) => e.followupId))}::int8[])
      as i (id, followup_id)
    where e.company_id = ${companyId}::int8 and e.id = i.id
  `.execute(trx);
};
