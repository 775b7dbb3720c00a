/** A page of a company's debtors, oldest first, each with the ids of its debts, and their total (one statement). */
import type { Db } from "../executor.ts";
import type { Keyset } from "../keyset.ts";
import { type Page, pageOfRows, type PageRequest } from "../page-of-rows.ts";
import { companyDebtors, type DebtorRow, withDebtorFields } from "./debtor-fields.ts";

/** Oldest first: the primary key `(company_id, id)` serves a page after a key. */
export const debtorOrder: Keyset = [{ column: "p.id", direction: "asc", kind: "integer" }];

export const listDebtors = (db: Db, companyId: number, page: PageRequest): Promise<Page<DebtorRow>> =>
  pageOfRows(
    db,
    companyDebtors(db, companyId),
    (debtors) => withDebtorFields(debtors, companyId),
    debtorOrder,
    page,
  );
