/** A company's api debts (outside campaigns) holding one of `internalIds`: id, creditor and internal_id. */
import type { Db } from "../executor.ts";

export const findApiDebtsByInternalId = (db: Db, companyId: number, internalIds: ReadonlyArray<string>) =>
  internalIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom("debts")
        .select(["id", "creditor_id", "internal_id"])
        .where("company_id", "=", companyId)
        .where("campaign_id", "is", null)
        .where("internal_id", "in", internalIds)
        .execute();
