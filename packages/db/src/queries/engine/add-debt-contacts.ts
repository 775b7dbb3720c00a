/**
 * What executed actions change on their debts, one statement for all
 * (docs/decisions/0604): `nb_reminders` plus the actions executed,
 * `nb_answered` plus those the debtor answered, and the move from
 * `status.default.pending` to `status.default.in_progress` for the debts the
 * caller found allowed by `DebtStatus.canTransition`, and `followups_count`
 * plus the followups the transaction scheduled for it. The move is written
 * only if the debt is still `pending`, so a status changed meanwhile is kept.
 * One row per debt: the caller adds up a debt's changes.
 */
import { sql } from "kysely";
import { integerArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export interface DebtContacts {
  readonly companyId: number;
  readonly debtId: number;
  readonly reminders: number;
  readonly answered: number;
  /** Followups added to the debt (its next step scheduled). */
  readonly followups: number;
  /** Move `pending` to `in_progress`. */
  readonly start: boolean;
}

/** Applies `changes`; returns the debts whose row changed. */
export const addDebtContacts = async (
  trx: DbTransaction,
  changes: ReadonlyArray<DebtContacts>,
  now: Date,
): Promise<ReadonlyArray<{ readonly companyId: number; readonly debtId: number }>> => {
  const written = changes.filter(
    (change) => change.reminders > 0 || change.answered > 0 || change.followups > 0 || change.start,
  );
  if (written.length === 0) return [];
  const { rows } = await sql<{ company_id: number; id: number }>`
    update debts d
    set nb_reminders = d.nb_reminders + i.reminders, nb_answered = d.nb_answered + i.answered,
      followups_count = d.followups_count + i.followups,
      status = case when i.start and d.status = 'status.default.pending' then 'status.default.in_progress' else d.status end,
      updated_at = ${now.toISOString()}::timestamptz
    from unnest(
      ${integerArray(written.map((c) => c.companyId))}::int8[],
      ${integerArray(written.map((c) => c.debtId))}::int8[],
      ${integerArray(written.map((c) => c.reminders))}::int4[],
      ${integerArray(written.map((c) => c.answered))}::int4[],
      ${integerArray(written.map((c) => c.followups))}::int4[],
      ${`{${written.map((c) => (c.start ? "t" : "f")).join(",")}}`}::bool[]
    ) as i (company_id, debt_id, reminders, answered, followups, start)
    where d.company_id = i.company_id and d.id = i.debt_id
    returning d.company_id, d.id
  `.execute(trx);
  return rows.map((row) => ({ companyId: row.company_id, debtId: row.id }));
};
