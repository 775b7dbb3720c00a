/**
 * Writes the ledger rows of followups' credit charges (`followup_executed`,
 * a negative delta each, decision 0152): `insertFollowupCharge` for the
 * api's one followup, `insertFollowupCharges` for a batch of the engine's,
 * one statement whatever the count.
 */
import { sql } from "kysely";
import { integerArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export interface FollowupCharge {
  readonly companyId: number;
  readonly followupId: number;
  readonly credits: number;
}

/** Writes one ledger row per charge (free ones included: callers pass only what costs). */
export const insertFollowupCharges = async (
  trx: DbTransaction,
  charges: ReadonlyArray<FollowupCharge>,
  now: Date,
): Promise<void> => {
  if (charges.length === 0) return;
  await sql`
    insert into credit_transactions (company_id, followup_id, delta, reason, created_at)
    select i.company_id, i.followup_id, -i.credits, 'followup_executed', ${now.toISOString()}::timestamptz
    from unnest(
      ${integerArray(charges.map((c) => c.companyId))}::int8[],
      ${integerArray(charges.map((c) => c.followupId))}::int8[],
      ${integerArray(charges.map((c) => c.credits))}::int4[]
    ) as i (company_id, followup_id, credits)
  `.execute(trx);
};

export const insertFollowupCharge = async (
  trx: DbTransaction,
  charge: { readonly companyId: number; readonly followupId: number; readonly credits: number; readonly now: Date },
): Promise<void> => insertFollowupCharges(trx, [charge], charge.now);
