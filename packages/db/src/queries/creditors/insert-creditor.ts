/** Inserts a creditor of a company and returns it. */
import type { Db } from "../executor.ts";
import { type CreditorFields, type CreditorRow, creditorColumns } from "./creditor-columns.ts";

export const insertCreditor = (
  db: Db,
  creditor: { readonly companyId: number; readonly name: string; readonly fields: CreditorFields; readonly now: Date },
): Promise<CreditorRow> =>
  db
    .insertInto("creditors")
    .values({
      ...creditor.fields,
      name: creditor.name,
      company_id: creditor.companyId,
      created_at: creditor.now,
      updated_at: creditor.now,
    })
    .returning(creditorColumns)
    .executeTakeFirstOrThrow();
