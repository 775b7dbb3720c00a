/** A stored object's type and bytes by company and key, or undefined when there is none. */
import type { Db } from "../executor.ts";

export const findStoredObject = (db: Db, companyId: number, key: string) =>
  db
    .selectFrom("stored_objects")
    .select(["content_type", "body"])
    .where("company_id", "=", companyId)
    .where("key", "=", key)
    .executeTakeFirst();
