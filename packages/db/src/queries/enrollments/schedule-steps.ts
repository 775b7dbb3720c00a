/**
 * Schedules steps of enrollments: one statement inserts each named step's
 * followup (`scheduled`, or `on_hold` while the enrollment is paused),
 * advances the enrollments' `next_step`, completes those whose named step is
 * past their version's last, and adds the new followups to their debts'
 * `followups_count`. Enrollment, a finished step, a block, a retry and a
 * resume all schedule through it.
 *
 * Idempotent: the unique index on (company, enrollment, run, step, attempt)
 * turns a second scheduling of the same attempt into nothing. An entry whose
 * enrollment is stopped, completed, waiting for a manual start, or on another
 * run than the one named (a restart happened meanwhile) schedules nothing.
 */
import { sql } from "kysely";
import { integerArray, textArray } from "../array-literals.ts";
import type { DbTransaction } from "../executor.ts";
import { dueAfter, followupTypeOfChannel, scheduleZone } from "./step-sql.ts";

export interface StepToSchedule {
  readonly enrollmentId: number;
  /** The enrollment's run the step belongs to. */
  readonly run: number;
  /** Index of the step in the version's run order; past the last step, the enrollment completes. */
  readonly step: number;
  /** 1 for a step's first attempt; a retry is the next attempt of the same step. */
  readonly attempt: number;
  /** When to run it; null = the step's due time (anchor + day offset). */
  readonly at: Date | null;
}

export interface ScheduledSteps {
  readonly scheduled: number;
  readonly completed: number;
  /** The debt of each followup inserted (once per followup). */
  readonly debtIds: ReadonlyArray<number>;
}

/**
 * Schedules `steps` of company `companyId`'s enrollments. `now` is the
 * injected clock's time, written as the rows' `created_at`/`updated_at`.
 * With `countFollowups: false` the debts' `followups_count` is left to the
 * caller, which updates those debts anyway (the outcome transaction adds
 * `debtIds` with its counters: one write of each debt instead of two).
 */
export const scheduleSteps = async (
  trx: DbTransaction,
  companyId: number,
  steps: ReadonlyArray<StepToSchedule>,
  now: Date,
  options: { readonly countFollowups?: boolean } = {},
): Promise<ScheduledSteps> => {
  if (steps.length === 0) return { scheduled: 0, completed: 0, debtIds: [] };
  const countFollowups = options.countFollowups ?? true;
  const stamp = now.toISOString();
  // An int8 array arrives as strings (only scalar bigints are parsed to numbers, connection.ts).
  const { rows } = await sql<{ scheduled: number; completed: number; debt_ids: string[] }>`
    with input as (
      select * from unnest(
        ${integerArray(steps.map((s) => s.enrollmentId))}::int8[],
        ${integerArray(steps.map((s) => s.run))}::int4[],
        ${integerArray(steps.map((s) => s.step))}::int4[],
        ${integerArray(steps.map((s) => s.attempt))}::int4[],
        ${textArray(steps.map((s) => (s.at === null ? null : s.at.toISOString())))}::timestamptz[]
      ) as i (enrollment_id, run, step, attempt, at)
    ),
    target as (
      select e.company_id, e.id as enrollment_id, e.debt_id, e.run, e.state, i.step, i.attempt, i.at,
        v.definition -> 'steps' -> i.step as step_definition,
        ${dueAfter(sql.ref("e.anchor_at"), sql`v.definition -> 'steps' -> i.step ->> 'day_offset'`, scheduleZone(sql.ref("v.definition"), sql.ref("c.time_zone")))} as due_at,
        c.sandbox
      from input i
      -- Primary-key lookups, fenced (offset 0) so that young statistics cannot turn them into a scan of
      -- the company's enrollments.
      cross join lateral (
        select * from enrollments e where e.company_id = ${companyId} and e.id = i.enrollment_id offset 0
      ) e
      cross join lateral (
        select v.definition from timeline_versions v where v.company_id = e.company_id and v.id = e.timeline_version_id offset 0
      ) v
      cross join lateral (select c.sandbox, c.time_zone from companies c where c.id = e.company_id offset 0) c
      where e.run = i.run and e.state in ('active', 'paused') and e.anchor_at is not null
    ),
    finished as (
      update enrollments e set state = 'completed', reason = null, paused_until = null, next_step = t.step, updated_at = ${stamp}
      from target t
      where e.company_id = t.company_id and e.id = t.enrollment_id and t.step_definition is null
      returning e.id
    ),
    inserted as (
      insert into followups (
        company_id, debt_id, status, type, direction, due_at, scheduled_at,
        enrollment_id, run, step, attempt, is_retry, sandbox, created_at, updated_at
      )
      select t.company_id, t.debt_id, case when t.state = 'active' then 'scheduled' else 'on_hold' end,
        ${followupTypeOfChannel(sql`t.step_definition ->> 'channel'`)}, 'outbound', t.due_at, coalesce(t.at, t.due_at),
        t.enrollment_id, t.run, t.step, t.attempt, t.attempt > 1, t.sandbox, ${stamp}, ${stamp}
      from target t
      where t.step_definition is not null
      on conflict (company_id, enrollment_id, run, step, attempt) where enrollment_id is not null do nothing
      returning company_id, debt_id, enrollment_id, step
    ),
    advanced as (
      update enrollments e set next_step = i.step + 1, updated_at = ${stamp}
      from inserted i
      where e.company_id = i.company_id and e.id = i.enrollment_id and e.next_step <> i.step + 1
    ),
    counted as (
      update debts d set followups_count = d.followups_count + n.added
      from (select company_id, debt_id, count(*)::int as added from inserted group by company_id, debt_id) n
      where ${countFollowups} and d.company_id = n.company_id and d.id = n.debt_id
    )
    select (select count(*) from inserted)::int as scheduled, (select count(*) from finished)::int as completed,
      array(select debt_id from inserted) as debt_ids
  `.execute(trx);
  const row = rows[0];
  return row === undefined
    ? { scheduled: 0, completed: 0, debtIds: [] }
    : { scheduled: row.scheduled, completed: row.completed, debtIds: row.debt_ids.map(Number) };
};
