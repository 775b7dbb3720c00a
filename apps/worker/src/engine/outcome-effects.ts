/**
 * What a provider's outcome does (docs/decisions/0604), as plain data for
 * the outcome transaction: the followup's fields, the debt's counters and
 * status move, the charge, and what comes next: a retry of the step after
 * `retry_after_hours` while attempts remain, else the next step; a promise
 * to pay also pauses the enrollment until its date.
 *
 * Counting: `nb_reminders` counts executed actions (an executed status,
 * decision 0152's list: sent, delivered, no_answer, deal_found,
 * deal_not_found, bad_behavior); `nb_answered` counts those in which the
 * debtor responded, which an adapter reports as `conversation: true` (a
 * call the debtor picked up and spoke on). A failed attempt counts in
 * neither.
 */
import type { SendContext, SendOutcomeRecord, StepToSchedule } from "@dc/db";
import { Channel, DebtStatus, Followup, TimelineDefinition } from "@dc/domain";
import type { Detection } from "@dc/providers";
import type { FinalOutcome } from "../channels/channel-adapter.ts";
import type { EngineSettings } from "./engine-settings.ts";

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
const phoneChannels: ReadonlySet<string> = new Set(["sms", "whatsapp", "ai_call", "voicemail", "manual_call"]);

export interface OutcomeEffects {
  readonly record: SendOutcomeRecord;
  readonly executed: boolean;
  readonly answered: boolean;
  /** The debt moves from `pending` to `in_progress` (the domain's transition rule allows it). */
  readonly start: boolean;
  readonly credits: number;
  readonly next: StepToSchedule;
  /** Set for a promise to pay: the enrollment pauses until then. */
  readonly promiseUntil: Date | null;
  /** Disputes and objections the outcome shows, for the review queue. */
  readonly detections: ReadonlyArray<Detection>;
}

export const outcomeEffects = (
  context: SendContext,
  step: TimelineDefinition.Step,
  recipient: string,
  outcome: FinalOutcome,
  engine: EngineSettings,
): OutcomeEffects => {
  const status = outcome.status;
  const executed = Followup.isExecuted(status);
  // A call that reached voicemail is recorded, and charged, as a voicemail (docs/decisions/0640).
  const voicemail = "voicemail" in outcome && outcome.voicemail === true && Channel.isCall(step.channel);
  const type = voicemail ? "voicemail" : Channel.followupType(step.channel);
  const durationMs = "durationMs" in outcome ? (outcome.durationMs ?? null) : null;
  const call = "call" in outcome ? (outcome.call ?? null) : null;
  const credits = executed ? Followup.chargedCredits({ type, durationMs, status }) : 0;
  const debtStatus = DebtStatus.isStatus(context.debt_status) ? context.debt_status : null;
  const retry =
    outcome.status === "failed" && outcome.retryable && context.attempt < TimelineDefinition.attemptsOf(step);
  const next: StepToSchedule = retry
    ? {
        enrollmentId: context.enrollment_id,
        run: context.run,
        step: context.step,
        attempt: context.attempt + 1,
        at: new Date(context.now.getTime() + TimelineDefinition.retryDelayHoursOf(step) * hourMs),
      }
    : { enrollmentId: context.enrollment_id, run: context.run, step: context.step + 1, attempt: 1, at: null };
  return {
    record: {
      companyId: context.company_id,
      followupId: context.id,
      status,
      callDate: call?.startedAt ?? context.now,
      providerMessageId: "providerMessageId" in outcome ? (outcome.providerMessageId ?? null) : null,
      durationMs,
      summary: "summary" in outcome ? (outcome.summary ?? null) : null,
      notes: outcome.status === "failed" ? outcome.error : null,
      creditsCharged: executed ? credits : null,
      phoneNumberUsed: call?.phoneNumberUsed ?? (phoneChannels.has(step.channel) ? recipient : null),
      callId: call?.callId ?? null,
      disconnectionReason: call?.disconnectionReason ?? null,
      audioUrl: call?.recordingUrl ?? null,
      direction: call?.direction ?? null,
      type: voicemail ? type : null,
      pdfObjectKey: "pdfObjectKey" in outcome ? (outcome.pdfObjectKey ?? null) : null,
    },
    executed,
    answered: executed && "conversation" in outcome && outcome.conversation,
    start:
      executed &&
      debtStatus === DebtStatus.pending &&
      DebtStatus.canTransition(DebtStatus.pending, DebtStatus.inProgress),
    credits,
    next,
    promiseUntil:
      outcome.status === "deal_found"
        ? (outcome.promiseUntil ?? new Date(context.now.getTime() + engine.defaultPromiseDays * dayMs))
        : null,
    detections: "detections" in outcome ? (outcome.detections ?? []) : [],
  };
};
