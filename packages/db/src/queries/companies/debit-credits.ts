/**
 * Takes `credits` from a company's balance. The update locks the company's
 * row until the transaction ends, and every debit of the company waits for
 * it: callers make this their last statement. The balance may go negative:
 * the activity already happened and its record must not be lost.
 */
import type { DbTransaction } from "../executor.ts";

export const debitCredits = async (trx: DbTransaction, companyId: number, credits: number): Promise<void> => {
  await trx
    .updateTable("companies")
    .set((eb) => ({ current_credits: eb("current_credits", "-", credits) }))
    .where("id", "=", companyId)
    .execute();
};
