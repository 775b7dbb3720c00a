/**
 * Puts debts on their timeline (docs/decisions/0600, 0601): in the
 * transaction that creates the debts or sets their `timeline_id`, two
 * statements whatever the count. The first writes each debt's enrollment on
 * its timeline's current version, anchored by its `timeline_start_mode`:
 *
 * - `immediate` (also when unset): anchored at the company's now; the first
 *   step is due at once and the guard moves it to the first allowed instant.
 * - `next_window`: anchored at the next start of the timeline's sending
 *   window (a listed weekday at `window.start`) at or after now.
 * - `due_date`: anchored at the start of the window on the debt's due date,
 *   or now when that is past or the debt has no due date.
 * - `manual`: enrolled `paused` with reason `awaiting_start` and no anchor,
 *   until a resume starts it (anchored then).
 *
 * The second schedules step 0 of the active ones (schedule-steps.ts). Debts
 * without a timeline, on a timeline without a version, or already paid or
 * cancelled, are not enrolled.
 */
import { sql } from "kysely";
import { integerArray, textArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";
import { companyClock } from "./company-clock.ts";
import { scheduleSteps } from "./schedule-steps.ts";
import { closedDebtStatuses, scheduleZone, waitingFollowupStatuses } from "./step-sql.ts";

export interface EnrollDebts {
  readonly companyId: number;
  readonly debtIds: ReadonlyArray<number>;
  /** The injected clock's time; a sandbox company's own clock replaces it for the schedule. */
  readonly now: Date;
  /**
   * false: a debt already enrolled keeps its enrollment (creation paths).
   * true: a debt already enrolled starts over on its timeline's current
   * version as a new run, its waiting followup cancelled, and every enrolled
   * debt's `last_timeline_restart` is set (an update of `timeline_id`, the
   * restart operation).
   */
  readonly restart: boolean;
}

export interface Enrolled {
  readonly debtId: number;
  readonly enrollmentId: number;
  readonly state: "active" | "paused";
}

/** Enrolls `debtIds` of `companyId` (see the module comment); returns the enrollments written. */
export const enrollDebts = async (trx: DbTransaction, input: EnrollDebts): Promise<ReadonlyArray<Enrolled>> => {
  const { companyId, debtIds, now, restart } = input;
  if (debtIds.length === 0) return [];
  const stamp = now.toISOString();
  const onConflict = restart
    ? sql`do update set timeline_id = excluded.timeline_id, timeline_version_id = excluded.timeline_version_id,
          state = excluded.state, reason = excluded.reason, anchor_at = excluded.anchor_at, paused_until = null,
          next_step = excluded.next_step, run = enrollments.run + 1, updated_at = excluded.updated_at`
    : sql`do nothing`;
  const { rows } = await sql<{ debt_id: number; id: number; run: number; state: "active" | "paused" }>`
    with clock as (
      select c.id as company_id, ${companyClock("c", now)} as now, c.time_zone
      from companies c where c.id = ${companyId}
    ),
    candidates as (
      select d.id as debt_id, d.timeline_id, v.id as version_id, coalesce(d.timeline_start_mode, 'immediate') as mode,
        d.due_date, v.definition -> 'scheduling' as scheduling,
        ${scheduleZone(sql.ref("v.definition"), sql.ref("clock.time_zone"))} as zone, clock.now
      from clock
      join debts d on d.company_id = clock.company_id and d.id = any (${integerArray(debtIds)}::int8[])
      join timelines t on t.company_id = d.company_id and t.id = d.timeline_id
      join timeline_versions v on v.company_id = t.company_id and v.id = t.current_version_id
      where d.status <> all (${textArray(closedDebtStatuses)}::text[])
    ),
    anchored as (
      select c.*,
        case c.mode
          when 'manual' then null
          when 'next_window' then (
            select min(w.at)
            from generate_series(0, 7) as k (n)
            cross join lateral (
              select ((c.now at time zone c.zone)::date + k.n) as day,
                (((c.now at time zone c.zone)::date + k.n) + (c.scheduling -> 'window' ->> 'start')::time) at time zone c.zone as at
            ) w
            where w.at >= c.now
              and extract(isodow from w.day)::int in (select jsonb_array_elements_text(c.scheduling -> 'weekdays')::int)
          )
          when 'due_date' then greatest(c.now, (c.due_date + (c.scheduling -> 'window' ->> 'start')::time) at time zone c.zone)
          else c.now
        end as anchor_at
      from candidates c
    ),
    cancelled as (
      update followups f set status = 'cancelled', updated_at = ${stamp}
      from enrollments e
      where ${restart}
        and e.company_id = ${companyId} and e.debt_id in (select debt_id from anchored)
        and f.company_id = e.company_id and f.enrollment_id = e.id and f.run = e.run
        and f.status = any (${textArray(waitingFollowupStatuses)}::text[])
    ),
    restarted as (
      update debts d set last_timeline_restart = a.now
      from anchored a
      where ${restart} and d.company_id = ${companyId} and d.id = a.debt_id
    ),
    enrolled as (
      insert into enrollments (company_id, debt_id, timeline_id, timeline_version_id, state, reason, anchor_at, next_step, created_at, updated_at)
      select ${companyId}, a.debt_id, a.timeline_id, a.version_id,
        case when a.mode = 'manual' then 'paused' else 'active' end,
        case when a.mode = 'manual' then 'awaiting_start' end,
        -- An active enrollment's step 0 is scheduled next (scheduleSteps), which makes its next step 1.
        a.anchor_at, case when a.mode = 'manual' then 0 else 1 end, ${stamp}, ${stamp}
      from anchored a
      order by a.debt_id
      on conflict (company_id, debt_id) ${onConflict}
      returning debt_id, id, run, state
    )
    select debt_id, id, run, state from enrolled
  `.execute(trx);
  await scheduleSteps(
    trx,
    companyId,
    rows
      .filter((row) => row.state === "active")
      .map((row) => ({ enrollmentId: row.id, run: row.run, step: 0, attempt: 1, at: null })),
    now,
  );
  return rows.map((row) => ({ debtId: row.debt_id, enrollmentId: row.id, state: row.state }));
};
