/** Where a followup's media live (object keys, possibly null), or undefined when there is no such followup. */
import type { Db } from "../executor.ts";

export const findFollowupMedia = (db: Db, companyId: number, followupId: number) =>
  db
    .selectFrom("followups")
    .select(["audio_object_key", "pdf_object_key"])
    .where("id", "=", followupId)
    .where("company_id", "=", companyId)
    .executeTakeFirst();
