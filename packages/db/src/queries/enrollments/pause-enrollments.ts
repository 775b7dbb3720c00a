/**
 * Pauses debts' enrollments, in one statement: the enrollment becomes
 * `paused` with its reason and optional end, and its scheduled followup
 * `on_hold`, out of the due index, so no sweep reads it while paused. A
 * pause with an end is resumed by the sweep when the company's clock reaches
 * it (resume-enrollments.ts). Pausing a paused enrollment replaces its
 * reason and end; a manual-start enrollment paused with an end starts then.
 */
import { sql } from "kysely";
import { integerArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";

export interface PauseEnrollments {
  readonly companyId: number;
  readonly debtIds: ReadonlyArray<number>;
  /** When the pause ends by itself on the company's clock; null = until a resume. */
  readonly until: Date | null;
  /** Recorded as `enrollments.reason` (e.g. `paused`, `promise_to_pay`). */
  readonly reason: string;
  /** The injected clock's time (the rows' `updated_at`). */
  readonly now: Date;
}

/** Pauses the active or paused enrollments of `debtIds`; returns how many. */
export const pauseEnrollments = async (trx: DbTransaction, input: PauseEnrollments): Promise<number> => {
  const { companyId, debtIds, until, reason, now } = input;
  if (debtIds.length === 0) return 0;
  const stamp = now.toISOString();
  const { rows } = await sql<{ paused: number }>`
    with paused as (
      update enrollments
      set state = 'paused', reason = ${reason}, paused_until = ${until === null ? null : until.toISOString()}::timestamptz,
        updated_at = ${stamp}
      where company_id = ${companyId} and debt_id = any (${integerArray(debtIds)}::int8[]) and state in ('active', 'paused')
      returning id, run
    ),
    held as (
      update followups f set status = 'on_hold', updated_at = ${stamp}
      from paused p
      where f.company_id = ${companyId} and f.enrollment_id = p.id and f.run = p.run and f.status = 'scheduled'
    )
    select count(*)::int as paused from paused
  `.execute(trx);
  return rows[0]?.paused ?? 0;
};
