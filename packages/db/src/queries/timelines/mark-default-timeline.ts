/**
 * Makes a timeline its company's default, and no other. PostgreSQL checks a
 * unique index row by row, so the former default is cleared before the new
 * one is set; the caller holds the company's row lock (`lockCompany`) in the
 * same transaction, so two of these for one company run one after the other
 * and the index of one default per company (migration 0031) never refuses.
 */
import type { DbTransaction } from "../executor.ts";

export const markDefaultTimeline = async (trx: DbTransaction, companyId: number, timelineId: number): Promise<void> => {
  await trx
    .updateTable("timelines")
    .set({ is_default: false })
    .where("company_id", "=", companyId)
    .where("is_default", "=", true)
    .where("id", "<>", timelineId)
    .execute();
  await trx
    .updateTable("timelines")
    .set({ is_default: true })
    .where("company_id", "=", companyId)
    .where("id", "=", timelineId)
    .execute();
};
