/**
 * Locks a company's row `for update` until the transaction ends: writes
 * that check a per-company limit before inserting take it first, so two of
 * them cannot both pass the check. Throws when there is no such company.
 */
import type { DbTransaction } from "../executor.ts";

export const lockCompany = async (trx: DbTransaction, companyId: number): Promise<void> => {
  await trx.selectFrom("companies").select("id").where("id", "=", companyId).forUpdate().executeTakeFirstOrThrow();
};
