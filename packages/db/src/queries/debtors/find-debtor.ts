/** One debtor of a company with the ids of its debts, or undefined. */
import type { Db } from "../executor.ts";
import { companyDebtors, type DebtorRow, withDebtorFields } from "./debtor-fields.ts";

export const findDebtor = (db: Db, companyId: number, debtorId: number): Promise<DebtorRow | undefined> =>
  withDebtorFields(companyDebtors(db, companyId), companyId).where("p.id", "=", debtorId).executeTakeFirst();
