/** One creditor of a company, or undefined. */
import type { Db } from "../executor.ts";
import { type CreditorRow, creditorColumns } from "./creditor-columns.ts";

export const findCreditor = (db: Db, companyId: number, creditorId: number): Promise<CreditorRow | undefined> =>
  db
    .selectFrom("creditors")
    .select(creditorColumns)
    .where("id", "=", creditorId)
    .where("company_id", "=", companyId)
    .executeTakeFirst();
