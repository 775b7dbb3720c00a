/** A page of a company's debtors, oldest first, each with the ids of its debts, and their total (one statement). */
import type { Db } from "../executor.ts";
import { type Page, pageOfRows, type PageRequest } from "../page-of-rows.ts";
import { companyDebtors, type DebtorRow, withDebtorFields } from "./debtor-fields.ts";

export const listDebtors = (db: Db, companyId: number, page: PageRequest): Promise<Page<DebtorRow>> =>
  pageOfRows(
    db,
    companyDebtors(db, companyId),
    (debtors) => withDebtorFields(debtors, companyId).orderBy("p.id"),
    page,
  );
