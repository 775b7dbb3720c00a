/**
 * Sets the given columns of a company's creditor and returns it, or
 * undefined when the company has no such creditor. `name` is never cleared:
 * a `null` name leaves it unchanged.
 */
import type { Db } from "../executor.ts";
import { type CreditorFields, type CreditorRow, creditorColumns } from "./creditor-columns.ts";

export const updateCreditor = (
  db: Db,
  update: {
    readonly companyId: number;
    readonly creditorId: number;
    readonly fields: CreditorFields;
    readonly now: Date;
  },
): Promise<CreditorRow | undefined> => {
  const { name, ...columns } = update.fields;
  return db
    .updateTable("creditors")
    .set({ ...columns, ...(name === undefined || name === null ? {} : { name }), updated_at: update.now })
    .where("id", "=", update.creditorId)
    .where("company_id", "=", update.companyId)
    .returning(creditorColumns)
    .executeTakeFirst();
};
