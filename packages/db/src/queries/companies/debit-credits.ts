/**
 * Takes `credits` from a company's balance. The update locks the company's
 * row until the transaction ends, and every debit of the company waits for
 * it: callers make this their last statement. The balance may go negative:
 * the activity already happened and its record must not be lost.
 */
import { sql } from "kysely";
import { integerArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export const debitCredits = async (trx: DbTransaction, companyId: number, credits: number): Promise<void> => {
  await trx
    .updateTable("companies")
    .set((eb) => ({ current_credits: eb("current_credits", "-", credits) }))
    .where("id", "=", companyId)
    .execute();
};

/**
 * Takes credits from several companies in one statement (the engine's batch
 * of charges), each company once; the same locking rule as `debitCredits`.
 */
export const debitCompaniesCredits = async (
  trx: DbTransaction,
  debits: ReadonlyArray<{ readonly companyId: number; readonly credits: number }>,
): Promise<void> => {
  const byCompany = new Map<number, number>();
  for (const debit of debits) byCompany.set(debit.companyId, (byCompany.get(debit.companyId) ?? 0) + debit.credits);
  const companies = [...byCompany].filter(([, credits]) => credits > 0).sort(([a], [b]) => a - b);
  if (companies.length === 0) return;
  await sql`
    update companies c set current_credits = c.current_credits - i.credits
    from unnest(
      ${integerArray(companies.map(([id]) => id))}::int8[],
      ${integerArray(companies.map(([, credits]) => credits))}::int4[]
    ) as i (id, credits)
    where c.id = i.id
  `.execute(trx);
};
