/**
 * A debt's place on its timeline, for `GET /debts/{id}/timeline`: the
 * enrollment (state, reason, anchor, pause), when its next action runs, the
 * steps of its version in run order with each one's due time and the
 * followups of the current run that carried it out (done, waiting or
 * cancelled), and the guard's decisions on those followups. Three reads.
 */
import { sql } from "kysely";
import type { Db } from "../executor.ts";
import { followupResourceColumns, type FollowupResourceRow } from "../webhooks/event-data/followup-data.ts";
import { companyClock } from "./company-clock.ts";
import { dueAfter, scheduleZone } from "./step-sql.ts";

export interface EnrollmentStepView {
  /** Index in the version's run order. */
  readonly step: number;
  readonly dayOffset: number;
  readonly channel: string;
  /** Anchor plus day offset; null while the enrollment waits for a manual start. */
  readonly dueAt: Date | null;
  /** The attempts of this step in the current run, first attempt first. */
  readonly followups: ReadonlyArray<EngineFollowupRow>;
}

/** An engine followup: its public columns and the engine's own. */
export type EngineFollowupRow = FollowupResourceRow & {
  readonly step: number;
  readonly attempt: number;
  readonly due_at: Date | null;
  readonly recipient: string | null;
  readonly guard_reason: string | null;
  readonly guard_detail: string | null;
};

export interface FollowupDecisionView {
  readonly followupId: number;
  readonly step: number;
  readonly attempt: number;
  readonly decidedAt: Date;
  readonly decision: "defer" | "block";
  readonly reason: string;
  readonly detail: string | null;
  readonly deferredUntil: Date | null;
}

export interface EnrollmentView {
  readonly enrollmentId: number;
  readonly timelineId: number;
  readonly timelineVersionId: number;
  readonly version: number;
  readonly state: "active" | "paused" | "stopped" | "completed";
  readonly reason: string | null;
  readonly anchorAt: Date | null;
  readonly pausedUntil: Date | null;
  /** 1, plus one per restart. */
  readonly run: number;
  readonly enrolledAt: Date;
  readonly updatedAt: Date;
  /** The company's clock now (a sandbox company's own). */
  readonly now: Date;
  /** When the next action is planned: the waiting `scheduled` followup's time; null unless active. */
  readonly nextActionAt: Date | null;
  readonly steps: ReadonlyArray<EnrollmentStepView>;
  /** Deferrals and blocks of this run's followups, oldest first. */
  readonly decisions: ReadonlyArray<FollowupDecisionView>;
}

/** The enrollment of company `companyId`'s debt `debtId`; undefined when the debt was never enrolled. */
export const findEnrollmentView = async (
  db: Db,
  input: { readonly companyId: number; readonly debtId: number; readonly now?: Date },
): Promise<EnrollmentView | undefined> => {
  const { companyId, debtId } = input;
  const now = input.now ?? new Date();
  const { rows } = await sql<{
    id: number;
    timeline_id: number;
    timeline_version_id: number;
    version: number;
    state: EnrollmentView["state"];
    reason: string | null;
    anchor_at: Date | null;
    paused_until: Date | null;
    run: number;
    created_at: Date;
    updated_at: Date;
    now: Date;
    steps: Array<{ step: number; day_offset: number; channel: string; due_at: string | null }>;
  }>`
    select e.id, e.timeline_id, e.timeline_version_id, v.version, e.state, e.reason, e.anchor_at, e.paused_until, e.run,
      e.created_at, e.updated_at, ${companyClock("c", now)} as now,
      (
        select coalesce(jsonb_agg(jsonb_build_object(
          'step', s.ordinality - 1, 'day_offset', (s.value ->> 'day_offset')::int, 'channel', s.value ->> 'channel',
          'due_at', ${dueAfter(sql.ref("e.anchor_at"), sql`s.value ->> 'day_offset'`, scheduleZone(sql.ref("v.definition"), sql.ref("c.time_zone")))}
        ) order by s.ordinality), '[]'::jsonb)
        from jsonb_array_elements(v.definition -> 'steps') with ordinality as s
      ) as steps
    from enrollments e
    join timeline_versions v on v.company_id = e.company_id and v.id = e.timeline_version_id
    join companies c on c.id = e.company_id
    where e.company_id = ${companyId} and e.debt_id = ${debtId}
  `.execute(db);
  const enrollment = rows[0];
  if (enrollment === undefined) return undefined;
  const followups = await db
    .selectFrom("followups")
    .select([...followupResourceColumns, "step", "attempt", "due_at", "recipient", "guard_reason", "guard_detail"])
    .where("company_id", "=", companyId)
    .where("enrollment_id", "=", enrollment.id)
    .where("run", "=", enrollment.run)
    .orderBy("step")
    .orderBy("attempt")
    .execute();
  const decisions = await db
    .selectFrom("followup_decisions as d")
    .innerJoin("followups as f", (join) =>
      join.onRef("f.company_id", "=", "d.company_id").onRef("f.id", "=", "d.followup_id"),
    )
    .select([
      "d.followup_id",
      "f.step",
      "f.attempt",
      "d.decided_at",
      "d.decision",
      "d.reason",
      "d.detail",
      "d.deferred_until",
    ])
    .where("d.company_id", "=", companyId)
    .where("f.enrollment_id", "=", enrollment.id)
    .where("f.run", "=", enrollment.run)
    .orderBy("d.id")
    .execute();
  const engineRows = followups.map((row) => ({ ...row, step: row.step ?? 0 }));
  const waiting = engineRows.find((row) => row.status === "scheduled");
  return {
    enrollmentId: enrollment.id,
    timelineId: enrollment.timeline_id,
    timelineVersionId: enrollment.timeline_version_id,
    version: enrollment.version,
    state: enrollment.state,
    reason: enrollment.reason,
    anchorAt: enrollment.anchor_at,
    pausedUntil: enrollment.paused_until,
    run: enrollment.run,
    enrolledAt: enrollment.created_at,
    updatedAt: enrollment.updated_at,
    now: enrollment.now,
    nextActionAt: enrollment.state === "active" ? (waiting?.scheduled_at ?? null) : null,
    steps: enrollment.steps.map((step) => ({
      step: step.step,
      dayOffset: step.day_offset,
      channel: step.channel,
      dueAt: step.due_at === null ? null : new Date(step.due_at),
      followups: engineRows.filter((row) => row.step === step.step),
    })),
    decisions: decisions.map((row) => ({
      followupId: row.followup_id,
      step: row.step ?? 0,
      attempt: row.attempt,
      decidedAt: row.decided_at,
      decision: row.decision,
      reason: row.reason,
      detail: row.detail,
      deferredUntil: row.deferred_until,
    })),
  };
};
