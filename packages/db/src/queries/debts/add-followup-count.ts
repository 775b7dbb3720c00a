/**
 * Adds one to a company's debt's `followups_count` and returns its id, or
 * undefined when the company has no such debt. The update locks the debt's
 * row until the transaction ends.
 */
import type { DbTransaction } from "../executor.ts";

export const addFollowupCount = (trx: DbTransaction, companyId: number, debtId: number) =>
  trx
    .updateTable("debts")
    .set((eb) => ({ followups_count: eb("followups_count", "+", 1) }))
    .where("id", "=", debtId)
    .where("company_id", "=", companyId)
    .returning("id")
    .executeTakeFirst();
