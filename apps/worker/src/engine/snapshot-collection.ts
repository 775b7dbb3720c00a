/**
 * What an applied snapshot changes in the collection (docs/decisions/0600):
 * the debts it created enter their campaign's timeline (contract 4.2 rule
 * 8), and the debts it paid off stop theirs, in the applying transaction,
 * set-based: a debt paid by a snapshot is never contacted after that commit.
 */
import { type AppliedPlan, type DbTransaction, enrollDebts, stopEnrollments } from "@dc/db";

export const followSnapshotInCollection = async (
  trx: DbTransaction,
  companyId: number,
  applied: Pick<AppliedPlan, "createdIds" | "settledIds">,
  now: Date,
): Promise<void> => {
  await enrollDebts(trx, { companyId, debtIds: applied.createdIds, now, restart: false });
  await stopEnrollments(trx, { companyId, debtIds: applied.settledIds, reason: "paid", now });
};
