/** Reads a company's debt row and locks it `for update` until the transaction ends; undefined when there is none. */
import type { Debt } from "../../schema.ts";
import type { DbTransaction } from "../executor.ts";

export const lockDebt = (trx: DbTransaction, companyId: number, debtId: number): Promise<Debt | undefined> =>
  trx
    .selectFrom("debts")
    .selectAll()
    .where("id", "=", debtId)
    .where("company_id", "=", companyId)
    .forUpdate()
    .executeTakeFirst();
