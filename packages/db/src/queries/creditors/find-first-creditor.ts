/** A company's oldest creditor's id, or undefined without creditors. */
import type { Db } from "../executor.ts";

export const findFirstCreditor = async (db: Db, companyId: number): Promise<number | undefined> =>
  (await db.selectFrom("creditors").select("id").where("company_id", "=", companyId).orderBy("id").executeTakeFirst())
    ?.id;
