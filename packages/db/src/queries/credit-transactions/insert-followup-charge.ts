/** Writes the ledger row of a followup's credit charge (`followup_executed`, a negative delta). */
import type { DbTransaction } from "../executor.ts";

export const insertFollowupCharge = async (
  trx: DbTransaction,
  charge: { readonly companyId: number; readonly followupId: number; readonly credits: number; readonly now: Date },
): Promise<void> => {
  await trx
    .insertInto("credit_transactions")
    .values({
      company_id: charge.companyId,
      followup_id: charge.followupId,
      delta: -charge.credits,
      reason: "followup_executed",
      created_at: charge.now,
    })
    .execute();
};
