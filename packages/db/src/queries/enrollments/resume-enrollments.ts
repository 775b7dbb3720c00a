/**
 * Resumes paused enrollments: the enrollment becomes `active` again, its
 * followup on hold `scheduled` at its time or now when that passed (the
 * guard then moves it to the next allowed instant), and an enrollment
 * waiting for a manual start is anchored now and gets its step 0. An
 * enrollment left with no waiting followup gets its next step scheduled.
 * Two statements whatever the count.
 */
import { sql } from "kysely";
import { integerArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";
import { companyClock } from "./company-clock.ts";
import { scheduleSteps } from "./schedule-steps.ts";

export interface ResumeEnrollments {
  readonly companyId: number;
  readonly debtIds: ReadonlyArray<number>;
  /** The injected clock's time; a sandbox company's own clock replaces it for the schedule. */
  readonly now: Date;
}

/** Resumes the paused enrollments of `debtIds`; returns how many. */
export const resumeEnrollments = async (trx: DbTransaction, input: ResumeEnrollments): Promise<number> => {
  const { companyId, debtIds, now } = input;
  if (debtIds.length === 0) return 0;
  const stamp = now.toISOString();
  const { rows } = await sql<{ id: number; run: number; next_step: number; lacks_followup: boolean }>`
    with target as (
      select e.id, e.run, e.next_step, ${companyClock("c", now)} as now,
        not exists (
          select 1 from followups f
          where f.company_id = e.company_id and f.enrollment_id = e.id and f.run = e.run
            and f.status in ('scheduled', 'on_hold', 'in_progress')
        ) as lacks_followup
      from enrollments e
      join companies c on c.id = e.company_id
      where e.company_id = ${companyId} and e.debt_id = any (${integerArray(debtIds)}::int8[]) and e.state = 'paused'
      for update of e
    ),
    resumed as (
      update enrollments e
      set state = 'active', reason = null, paused_until = null, anchor_at = coalesce(e.anchor_at, t.now), updated_at = ${stamp}
      from target t
      where e.company_id = ${companyId} and e.id = t.id
    ),
    released as (
      update followups f set status = 'scheduled', scheduled_at = greatest(f.scheduled_at, t.now), updated_at = ${stamp}
      from target t
      where f.company_id = ${companyId} and f.enrollment_id = t.id and f.run = t.run and f.status = 'on_hold'
    )
    select id, run, next_step, lacks_followup from target
  `.execute(trx);
  await scheduleSteps(
    trx,
    companyId,
    rows
      .filter((row) => row.lacks_followup)
      .map((row) => ({ enrollmentId: row.id, run: row.run, step: row.next_step, attempt: 1, at: null })),
    now,
  );
  return rows.length;
};
