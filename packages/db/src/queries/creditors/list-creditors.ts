/** A page of a company's creditors, oldest first, with their total (one statement). */
import type { Db } from "../executor.ts";
import type { Keyset } from "../keyset.ts";
import { type Page, pageOfRows, type PageRequest } from "../page-of-rows.ts";
import { type CreditorRow, creditorColumns } from "./creditor-columns.ts";

/** Oldest first: the primary key `(company_id, id)` serves a page after a key. */
export const creditorOrder: Keyset = [{ column: "id", direction: "asc", kind: "integer" }];

export const listCreditors = (db: Db, companyId: number, page: PageRequest): Promise<Page<CreditorRow>> =>
  pageOfRows(
    db,
    db.selectFrom("creditors").where("company_id", "=", companyId),
    (creditors) => creditors.select(creditorColumns),
    creditorOrder,
    page,
  );
