/**
 * Lifts the holds of AI detections awaiting review (docs/decisions/0641):
 * a debt's `suggested` disputes stop `blocking` (they stay in the review
 * queue, counted as non-blocking), and its waiting followup that the guard
 * held for them is due again at the company's now, so the next sweep
 * decides it at once instead of at the hold's hourly re-check. The api's
 * timeline resume calls it until the review operations exist. One
 * statement whatever the count.
 */
import { sql } from "kysely";
import { integerArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";
import { companyClock } from "../enrollments/company-clock.ts";

export interface LiftDetectionHolds {
  readonly companyId: number;
  readonly debtIds: ReadonlyArray<number>;
  /** The injected clock's time; a sandbox company's own clock replaces it. */
  readonly now: Date;
}

/** Returns how many detections stopped blocking. */
export const liftDetectionHolds = async (trx: DbTransaction, input: LiftDetectionHolds): Promise<number> => {
  const { companyId, debtIds, now } = input;
  if (debtIds.length === 0) return 0;
  const debts = integerArray(debtIds);
  const { rows } = await sql<{ lifted: number }>`
    with lifted as (
      update ai_detections
      set blocking = false
      where company_id = ${companyId} and debt_id = any (${debts}::int8[]) and review_status = 'suggested' and blocking
      returning debt_id
    ),
    released as (
      update followups f
      set scheduled_at = least(f.scheduled_at, c.now), updated_at = ${now.toISOString()}::timestamptz
      from (select ${companyClock("co", now)} as now from companies co where co.id = ${companyId}) c
      where f.company_id = ${companyId} and f.debt_id in (select debt_id from lifted)
        and f.status = 'scheduled' and f.guard_reason = 'hold'
    )
    select count(*)::int as lifted from lifted
  `.execute(trx);
  return rows[0]?.lifted ?? 0;
};
