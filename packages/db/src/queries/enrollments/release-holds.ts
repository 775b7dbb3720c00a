/**
 * Lets the compliance guard look again, now, at the waiting followups of
 * debts whose hold may have lifted (a review of a debtor request or an AI
 * detection, docs/decisions/0680). A followup deferred by an open-ended hold
 * is otherwise re-checked hourly (docs/decisions/0602); this brings its
 * `scheduled_at` back to its due time, or the company's clock now when that
 * passed, so the next sweep decides it with the holds as they stand. A hold
 * still in force (another open request, an active plan) defers it again.
 */
import { sql } from "kysely";
import { integerArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";
import { companyClock } from "./company-clock.ts";

export interface ReleaseHolds {
  readonly companyId: number;
  readonly debtIds: ReadonlyArray<number>;
  /** The injected clock's time; a sandbox company's own clock replaces it. */
  readonly now: Date;
}

/** Reschedules the held followups of `debtIds`' current runs; returns how many. One statement. */
export const releaseHolds = async (trx: DbTransaction, input: ReleaseHolds): Promise<number> => {
  const { companyId, debtIds, now } = input;
  if (debtIds.length === 0) return 0;
  const { rows } = await sql<{ released: number }>`
    with released as (
      update followups f
      set scheduled_at = greatest(f.due_at, k.now), updated_at = ${now.toISOString()}::timestamptz
      from enrollments e, (select ${companyClock("c", now)} as now from companies c where c.id = ${companyId}) k
      where e.company_id = ${companyId} and e.debt_id = any (${integerArray(debtIds)}::int8[]) and e.state = 'active'
        and f.company_id = e.company_id and f.enrollment_id = e.id and f.run = e.run
        and f.status = 'scheduled' and f.guard_reason = 'hold' and f.scheduled_at > greatest(f.due_at, k.now)
      returning f.id
    )
    select count(*)::int as released from released
  `.execute(trx);
  return rows[0]?.released ?? 0;
};
