/**
 * The distinct (creditor, invoice_reference, currency) of a company's
 * invoices (debts that are not credit notes) holding one of `references`:
 * what a credit note may reference.
 */
import type { Db } from "../executor.ts";

export const findInvoiceCurrencies = (db: Db, companyId: number, references: ReadonlyArray<string>) =>
  references.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom("debts")
        .select(["creditor_id", "invoice_reference", "currency"])
        .distinct()
        .where("company_id", "=", companyId)
        .where("is_credit_note", "=", false)
        .where("invoice_reference", "in", references)
        .execute();
