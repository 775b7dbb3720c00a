/** A page of a company's creditors, oldest first, with their total (one statement). */
import type { Db } from "../executor.ts";
import { type Page, pageOfRows, type PageRequest } from "../page-of-rows.ts";
import { type CreditorRow, creditorColumns } from "./creditor-columns.ts";

export const listCreditors = (db: Db, companyId: number, page: PageRequest): Promise<Page<CreditorRow>> =>
  pageOfRows(
    db,
    db.selectFrom("creditors").where("company_id", "=", companyId),
    (creditors) => creditors.select(creditorColumns).orderBy("id"),
    page,
  );
