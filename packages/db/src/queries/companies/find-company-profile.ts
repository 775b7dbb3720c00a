/** A company's public profile columns, or undefined when there is no such company. */
import type { Db } from "../executor.ts";

export const findCompanyProfile = (db: Db, companyId: number) =>
  db
    .selectFrom("companies")
    .select(["id", "name", "email", "phone", "created_at"])
    .where("id", "=", companyId)
    .executeTakeFirst();
