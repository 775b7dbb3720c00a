/**
 * Stops debts' enrollments and cancels their waiting followups, in one
 * statement, in the transaction of the change that ends the collection (the
 * debt paid, settled, cancelled, taken off its timeline): a followup can no
 * longer be claimed once that commits, and the send transaction re-checks
 * the enrollment for a send claimed before (docs/decisions/0600). A followup
 * already `in_progress` keeps its outcome; no step is scheduled after it.
 */
import { sql } from "kysely";
import { integerArray, textArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";
import { waitingFollowupStatuses } from "./step-sql.ts";

/** Why an enrollment stopped, as `enrollments.reason` records it. */
export type StopReason = "paid" | "cancelled" | "timeline_removed" | "stopped";

export interface StopEnrollments {
  readonly companyId: number;
  readonly debtIds: ReadonlyArray<number>;
  readonly reason: StopReason | (string & {});
  /** The injected clock's time (the rows' `updated_at`). */
  readonly now: Date;
}

/** Stops the active or paused enrollments of `debtIds`; returns how many stopped. */
export const stopEnrollments = async (trx: DbTransaction, input: StopEnrollments): Promise<number> => {
  const { companyId, debtIds, reason, now } = input;
  if (debtIds.length === 0) return 0;
  const stamp = now.toISOString();
  const { rows } = await sql<{ stopped: number }>`
    with named as (
      -- Unique-key lookups, fenced (offset 0) so that young statistics cannot turn them into a scan of the
      -- company's enrollments by state.
      select e.id
      from unnest(${integerArray(debtIds)}::int8[]) as i (debt_id)
      cross join lateral (
        select e.id, e.state from enrollments e where e.company_id = ${companyId} and e.debt_id = i.debt_id offset 0
      ) e
      where e.state in ('active', 'paused')
    ),
    stopped as (
      update enrollments e set state = 'stopped', reason = ${reason}, paused_until = null, updated_at = ${stamp}
      from named n
      where e.company_id = ${companyId} and e.id = n.id
      returning e.id, e.run
    ),
    cancelled as (
      update followups f set status = 'cancelled', updated_at = ${stamp}
      from stopped s
      where f.company_id = ${companyId} and f.enrollment_id = s.id and f.run = s.run
        and f.status = any (${textArray(waitingFollowupStatuses)}::text[])
    )
    select count(*)::int as stopped from stopped
  `.execute(trx);
  return rows[0]?.stopped ?? 0;
};
