/**
 * Deletes a company's debt. Followups, requests and detections go with it
 * through their foreign keys, its plans and their installments through the
 * per-statement reference triggers (decision 0367); payments stay.
 */
import type { DbTransaction } from "../executor.ts";

export const deleteDebt = async (trx: DbTransaction, companyId: number, debtId: number): Promise<void> => {
  await trx.deleteFrom("debts").where("id", "=", debtId).where("company_id", "=", companyId).execute();
};
