/**
 * Sets columns of a company's debt. A unique violation (an internal_id or an
 * invoice_reference taken) is thrown as the driver's error, for the caller
 * to read its constraint.
 */
import type { DebtUpdate } from "../../schema.ts";
import type { DbTransaction } from "../executor.ts";

export const updateDebt = async (
  trx: DbTransaction,
  companyId: number,
  debtId: number,
  changes: DebtUpdate,
): Promise<void> => {
  await trx.updateTable("debts").set(changes).where("id", "=", debtId).where("company_id", "=", companyId).execute();
};
