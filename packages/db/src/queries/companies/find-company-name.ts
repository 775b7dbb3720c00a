/** A company's name; throws when there is no such company. */
import type { Db } from "../executor.ts";

export const findCompanyName = async (db: Db, companyId: number): Promise<string> =>
  (await db.selectFrom("companies").select("name").where("id", "=", companyId).executeTakeFirstOrThrow()).name;
