/** A company's debt's id and group, or undefined when the company has no such debt. */
import type { Db } from "../executor.ts";

export const findDebtKey = (db: Db, companyId: number, debtId: number) =>
  db
    .selectFrom("debts")
    .select(["id", "group_id"])
    .where("id", "=", debtId)
    .where("company_id", "=", companyId)
    .executeTakeFirst();
