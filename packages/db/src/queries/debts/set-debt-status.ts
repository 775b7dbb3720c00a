/**
 * Moves a company's debt to a status the collection workflow decides (a
 * validated dispute, a validated plan), only along the transition table
 * (`DebtStatus.canTransition`, docs/decisions/0530): a move the table does
 * not allow leaves the debt as it is.
 */
import { DebtStatus } from "@dc/domain";
import type { DbTransaction } from "../executor.ts";

/** Sets `to` on the locked debt now in `from`; returns whether it changed. */
export const setDebtStatus = async (
  trx: DbTransaction,
  debt: { readonly companyId: number; readonly id: number; readonly from: string },
  to: DebtStatus.Status,
  now: Date,
): Promise<boolean> => {
  if (!DebtStatus.isStatus(debt.from) || !DebtStatus.canTransition(debt.from, to)) return false;
  const result = await trx
    .updateTable("debts")
    .set({ status: to, updated_at: now })
    .where("company_id", "=", debt.companyId)
    .where("id", "=", debt.id)
    .where("status", "=", debt.from)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
};
