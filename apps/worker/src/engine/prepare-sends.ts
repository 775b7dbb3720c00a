/**
 * The send transaction's first half (DESIGN.md 8, docs/decisions/0603):
 * claims due followups, re-reads everything about them, and decides each
 * one, committed before any provider call:
 *
 * - its enrollment stopped, completed or restarted: `cancelled`;
 * - its debt paid or cancelled: `cancelled`, the enrollment stopped;
 * - its enrollment paused meanwhile: `on_hold`;
 * - otherwise the compliance guard: a deferral moves it (an open-ended one
 *   to a re-check `recheckMs` later), a block cancels it and schedules the
 *   next step, and an allowed one becomes `in_progress` with its recipient,
 *   its message rendered for the send.
 */
import {
  claimDueFollowups,
  type ClaimScope,
  type DbTransaction,
  type FollowupState,
  type GuardDecision,
  loadSendContexts,
  recordGuardDecisions,
  scheduleSteps,
  type SendContext,
  setFollowupStates,
  type StepToSchedule,
  stopEnrollments,
} from "@dc/db";
import { ComplianceGuard, DebtStatus } from "@dc/domain";
import type { OutboundMessage, Outcome } from "../channels/channel-adapter.ts";
import { byCompany } from "./by-company.ts";
import type { EngineDependencies } from "./engine-dependencies.ts";
import { guardInputOf, recipientOf, type StepContext, stepContexts } from "./guard-input.ts";
import { messageOf } from "./messages.ts";

/** A followup moved to `in_progress`, ready for its provider. */
export interface PreparedSend {
  readonly context: SendContext;
  readonly decoded: StepContext;
  readonly message: OutboundMessage;
  /** Set when the outcome is known without a provider call (a template that does not render). */
  readonly failure: Outcome | null;
}

/**
 * The send of a followup already `in_progress`, rebuilt from its context for
 * the crash recovery and a callback's outcome: to the recipient it was sent
 * to, the message rendered again, `startedAt` when it went `in_progress`
 * (what a provider is asked about). `decode` is one batch's `stepContexts()`.
 */
export const sendInProgress = (
  ids: EngineDependencies["ids"],
  links: EngineDependencies["links"],
  decode: ReturnType<typeof stepContexts>,
  context: SendContext,
): PreparedSend => {
  const decoded = decode(context);
  const recipient = context.recipient ?? recipientOf(context, decoded.step.channel);
  const built = messageOf(ids, links, context, decoded, recipient);
  return { context, decoded, failure: built.failure, message: { ...built.message, startedAt: context.updated_at } };
};

export interface PreparedBatch {
  readonly claimed: number;
  readonly sends: ReadonlyArray<PreparedSend>;
  readonly deferred: number;
  readonly blocked: number;
}

const closed: ReadonlyArray<string> = [DebtStatus.paid, DebtStatus.cancelled];

/** Claims at most `engine.batchSize` due followups of `scope` and decides them in `trx`. */
export const prepareSends = async (
  trx: DbTransaction,
  dependencies: Pick<EngineDependencies, "ids" | "links" | "engine">,
  scope: ClaimScope,
  now: Date,
): Promise<PreparedBatch> => {
  const { ids, links, engine } = dependencies;
  const claimed = await claimDueFollowups(trx, scope, engine.batchSize);
  if (claimed.length === 0) return { claimed: 0, sends: [], deferred: 0, blocked: 0 };
  const contexts = await loadSendContexts(trx, claimed, now);
  const decode = stepContexts();
  const states: FollowupState[] = [];
  const decisions: GuardDecision[] = [];
  const next: Array<StepToSchedule & { readonly companyId: number }> = [];
  const stops: Array<{ readonly companyId: number; readonly debtId: number; readonly reason: string }> = [];
  const sends: PreparedSend[] = [];
  const state = (context: SendContext, status: FollowupState["status"], recipient: string | null = null) =>
    states.push({ companyId: context.company_id, followupId: context.id, status, recipient, scheduledAt: null });

  for (const context of contexts) {
    if (
      context.enrollment_run !== context.run ||
      context.enrollment_state === "stopped" ||
      context.enrollment_state === "completed"
    ) {
      state(context, "cancelled");
      continue;
    }
    if (closed.includes(context.debt_status)) {
      state(context, "cancelled");
      stops.push({
        companyId: context.company_id,
        debtId: context.debt_id,
        reason: context.debt_status === DebtStatus.paid ? "paid" : "cancelled",
      });
      continue;
    }
    if (context.enrollment_state === "paused") {
      state(context, "on_hold");
      continue;
    }
    let decoded: StepContext;
    try {
      decoded = decode(context);
    } catch (error) {
      // A stored version that no longer decodes cannot be sent; its next step may still be.
      decisions.push({
        companyId: context.company_id,
        followupId: context.id,
        decision: "block",
        reason: "invalid_step",
        detail: error instanceof Error ? error.message.slice(0, 500) : String(error),
        until: null,
        decidedAt: context.now,
      });
      next.push({
        companyId: context.company_id,
        enrollmentId: context.enrollment_id,
        run: context.run,
        step: context.step + 1,
        attempt: 1,
        at: null,
      });
      continue;
    }
    const decision = ComplianceGuard.decide(guardInputOf(context, decoded, engine));
    if (decision._tag === "allow") {
      const recipient = recipientOf(context, decoded.step.channel);
      state(context, "in_progress", recipient);
      sends.push({ context, decoded, ...messageOf(ids, links, context, decoded, recipient) });
      continue;
    }
    decisions.push({
      companyId: context.company_id,
      followupId: context.id,
      decision: decision._tag,
      reason: decision.reason,
      detail: decision.detail ?? null,
      until: decision._tag === "block" ? null : (decision.until ?? new Date(context.now.getTime() + engine.recheckMs)),
      decidedAt: context.now,
    });
    if (decision._tag === "block") {
      next.push({
        companyId: context.company_id,
        enrollmentId: context.enrollment_id,
        run: context.run,
        step: context.step + 1,
        attempt: 1,
        at: null,
      });
    }
  }

  await setFollowupStates(trx, states, now);
  await recordGuardDecisions(trx, decisions, now);
  for (const [companyId, debts] of byCompany(stops, (stop) => stop.companyId)) {
    for (const reason of new Set(debts.map((debt) => debt.reason))) {
      const debtIds = debts.filter((debt) => debt.reason === reason).map((debt) => debt.debtId);
      await stopEnrollments(trx, { companyId, debtIds, reason, now });
    }
  }
  for (const [companyId, steps] of byCompany(next, (step) => step.companyId))
    await scheduleSteps(trx, companyId, steps, now);
  const blocked = decisions.filter((decision) => decision.decision === "block").length;
  return { claimed: claimed.length, sends, deferred: decisions.length - blocked, blocked };
};
