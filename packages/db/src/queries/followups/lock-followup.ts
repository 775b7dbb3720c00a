/**
 * Reads what a followup's credit charge depends on, locking its row `for
 * update` until the transaction ends: two concurrent updates to an executed
 * status see each other's charge and charge once. Undefined when the company
 * has no such followup.
 */
import type { DbTransaction } from "../executor.ts";

export const lockFollowup = (trx: DbTransaction, companyId: number, followupId: number) =>
  trx
    .selectFrom("followups")
    .select(["status", "type", "duration_ms", "processed_at"])
    .where("id", "=", followupId)
    .where("company_id", "=", companyId)
    .forUpdate()
    .executeTakeFirst();
