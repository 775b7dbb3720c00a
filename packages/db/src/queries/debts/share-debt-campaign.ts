/**
 * Takes the campaign row of a company's debt `for share` (nothing for a debt
 * outside campaigns). A new identity for a campaign debt waits for an apply
 * of its campaign in progress, and an apply starting meanwhile waits for it:
 * the worker holds the campaign's row (`for no key update`) while it plans
 * from the identities it read and writes, and this takes it before the
 * debt's row, in the worker's order. Without it, an apply created a debt
 * under an identity given to another debt since its read (a duplicate key,
 * then a retry), or deadlocked with the update (docs/decisions/0353).
 */
import { sql } from "kysely";
import type { DbTransaction } from "../executor.ts";

export const shareDebtCampaign = async (trx: DbTransaction, companyId: number, debtId: number): Promise<void> => {
  await sql`
    select 1 from campaigns c
    where c.company_id = ${companyId}
      and c.id = (select d.campaign_id from debts d where d.id = ${debtId} and d.company_id = ${companyId})
    for share of c`.execute(trx);
};
