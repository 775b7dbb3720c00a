/**
 * Locks a company's debt `for update` before its delete and tells whether a
 * campaign manages it; undefined when the company has no such debt.
 */
import type { DbTransaction } from "../executor.ts";

export const lockDebtForDelete = (trx: DbTransaction, companyId: number, debtId: number) =>
  trx
    .selectFrom("debts")
    .select(["id", "campaign_id"])
    .where("id", "=", debtId)
    .where("company_id", "=", companyId)
    .forUpdate()
    .executeTakeFirst();
