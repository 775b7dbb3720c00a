/**
 * The company of a creditor or timeline that exists (the admin CLI's check
 * that it belongs to the company named; docs/decisions/0010, a
 * tenant-statement exception); throws when there is none.
 */
import type { Db } from "../executor.ts";

export const findRowCompany = async (db: Db, table: "timelines" | "creditors", id: number): Promise<number> =>
  (await db.selectFrom(table).select(["company_id"]).where("id", "=", id).executeTakeFirstOrThrow()).company_id;
