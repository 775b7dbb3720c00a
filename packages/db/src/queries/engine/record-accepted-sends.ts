/**
 * Records that providers accepted sends whose outcome comes later by
 * callback (docs/decisions/0630): the followups stay `in_progress`, with the
 * provider's message id set (kept when null) and `updated_at` moved to now,
 * so the recovery asks the provider again only a send timeout later. One
 * statement; followups no longer `in_progress` (a callback came first) are
 * left alone.
 */
import { sql } from "kysely";
import { integerArray, textArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export interface AcceptedSend {
  readonly companyId: number;
  readonly followupId: number;
  readonly providerMessageId: string | null;
}

export const recordAcceptedSends = async (
  trx: DbTransaction,
  sends: ReadonlyArray<AcceptedSend>,
  now: Date,
): Promise<void> => {
  if (sends.length === 0) return;
  await sql`
    update followups f
    set provider_message_id = coalesce(i.provider_message_id, f.provider_message_id), updated_at = ${now.toISOString()}::timestamptz
    from unnest(
      ${integerArray(sends.map((s) => s.companyId))}::int8[],
      ${integerArray(sends.map((s) => s.followupId))}::int8[],
      ${textArray(sends.map((s) => s.providerMessageId))}::text[]
    ) as i (company_id, followup_id, provider_message_id)
    where f.company_id = i.company_id and f.id = i.followup_id and f.status = 'in_progress'
  `.execute(trx);
};
