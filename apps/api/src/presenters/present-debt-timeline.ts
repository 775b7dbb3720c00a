/**
 * A debt's run of its timeline in its contract shape (docs/decisions/0622),
 * from the engine's enrollment view: each step's status is derived from its
 * followups in this run, and the guard's decisions are filed under the
 * followup they were about.
 */
import type { Endpoints } from "@dc/contract";
import type { DomainIds as Ids, EnrollmentView } from "@dc/db";
import type { Followup as Rules } from "@dc/domain";

export type DebtTimelineView = Endpoints["getDebtTimeline"]["success"]["schema"]["Type"]["data"];
type StepView = DebtTimelineView["steps"][number];
type EngineFollowup = EnrollmentView["steps"][number]["followups"][number];

const waiting: ReadonlySet<string> = new Set(["scheduled", "on_hold", "in_progress"]);

const stepStatus = (followups: ReadonlyArray<EngineFollowup>): StepView["status"] => {
  const last = followups.at(-1);
  if (last === undefined) return "upcoming";
  if (waiting.has(last.status)) return "waiting";
  return last.status === "cancelled" ? "cancelled" : "done";
};

export const presentDebtTimeline = (ids: Ids, debtId: number, view: EnrollmentView): DebtTimelineView => ({
  debt_id: ids.encode("debt", debtId),
  timeline_id: ids.encode("timeline", view.timelineId),
  version: view.version,
  state: view.state,
  reason: view.reason,
  paused_until: view.pausedUntil,
  started_at: view.anchorAt,
  restarts: view.run - 1,
  next_action_at: view.nextActionAt,
  now: view.now,
  steps: view.steps.map((step) => ({
    step: step.step,
    day_offset: step.dayOffset,
    channel: step.channel,
    due_at: step.dueAt,
    status: stepStatus(step.followups),
    followups: step.followups.map((followup) => ({
      id: ids.encode("followup", followup.id),
      status: followup.status as Rules.FollowupStatus,
      attempt: followup.attempt,
      is_retry: followup.is_retry,
      scheduled_at: followup.scheduled_at,
      processed_at: followup.processed_at,
      recipient: followup.recipient,
      decisions: view.decisions
        .filter((decision) => decision.followupId === followup.id)
        .map((decision) => ({
          decided_at: decision.decidedAt,
          decision: decision.decision,
          reason: decision.reason,
          detail: decision.detail,
          deferred_until: decision.deferredUntil,
        })),
    })),
  })),
});
