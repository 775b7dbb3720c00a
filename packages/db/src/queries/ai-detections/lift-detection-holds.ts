/**
 * Lifts the holds of AI detections awaiting review (docs/decisions/0641):
 * a debt's `suggested` disputes stop `blocking` (they stay in the review
 * queue, counted as non-blocking), and its waiting followup that the guard
 * held for them is due again (releaseHolds), so the next sweep decides it
 * at once instead of at the hold's hourly re-check. The api's timeline
 * resume calls it: resuming a debt overrides what its detections held. Two
 * statements whatever the count.
 */
import { sql } from "kysely";
import { integerArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";
import { releaseHolds } from "../enrollments/release-holds.ts";

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
  const { rows } = await sql<{ debt_id: number }>`
    update ai_detections
    set blocking = false
    where company_id = ${companyId} and debt_id = any (${integerArray(debtIds)}::int8[]) and review_status = 'suggested' and blocking
    returning debt_id
  `.execute(trx);
  await releaseHolds(trx, { companyId, debtIds: [...new Set(rows.map((row) => row.debt_id))], now });
  return rows.length;
};
