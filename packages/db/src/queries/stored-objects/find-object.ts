/** Objects the platform stores, read by the media route (docs/decisions/0650, 0674). */
import type { Db } from "../executor.ts";

/** A stored object's type and bytes by company and key, or undefined when there is none. */
export const findStoredObject = (db: Db, companyId: number, key: string) =>
  db
    .selectFrom("stored_objects")
    .select(["content_type", "body"])
    .where("company_id", "=", companyId)
    .where("key", "=", key)
    .executeTakeFirst();

/** A debtor request's attachment (docs/decisions/0674): its name, type and bytes, or undefined when it has none. */
export const findDebtorRequestAttachment = (db: Db, companyId: number, debtorRequestId: number) =>
  db
    .selectFrom("stored_objects")
    .select(["file_name", "content_type", "body"])
    .where("company_id", "=", companyId)
    .where("debtor_request_id", "=", debtorRequestId)
    .executeTakeFirst();
