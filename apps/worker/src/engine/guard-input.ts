/**
 * Turns a claimed followup's send context (packages/db's
 * `loadSendContexts`) into the compliance guard's input: the step and the
 * scheduling of its timeline version, the company's settings, the debtor,
 * the executed contacts, opt-outs, holds and credits (docs/decisions/0603).
 * Stored definitions and settings are decoded once per version, step and
 * company within a batch.
 */
import type { SendContext } from "@dc/db";
import { Channel, type ComplianceGuard, ComplianceSettings, TimelineDefinition } from "@dc/domain";
import { Schema } from "effect";
import type { EngineSettings } from "./engine-settings.ts";

const dayMs = 86_400_000;
const decodeStep = Schema.decodeUnknownSync(TimelineDefinition.Step);
const decodeScheduling = Schema.decodeUnknownSync(TimelineDefinition.Scheduling);
const decodeOverrides = Schema.decodeUnknownEither(ComplianceSettings.Overrides);

/** Statuses of a call in which the debtor was reached and spoke (a conversation, for the cooldown). */
const conversationStatuses: ReadonlySet<string> = new Set(["deal_found", "deal_not_found", "bad_behavior"]);

const requestHolds: Readonly<Record<string, ComplianceGuard.Hold["kind"]>> = {
  portal_dispute: "dispute",
  hardship: "hardship",
  payment_plan: "payment_plan",
  ai_dispute: "ai_dispute",
  objection: "ai_dispute",
};

/** The decoded parts of a context the guard and the send need. */
export interface StepContext {
  readonly step: TimelineDefinition.Step;
  readonly scheduling: TimelineDefinition.Scheduling;
  readonly settings: ComplianceGuard.Settings;
}

/** Decodes contexts' steps, schedulings and settings, each distinct one once. */
export const stepContexts = () => {
  const steps = new Map<string, TimelineDefinition.Step>();
  const schedulings = new Map<number, TimelineDefinition.Scheduling>();
  const settings = new Map<number, ComplianceGuard.Settings>();
  return (context: SendContext): StepContext => {
    const stepKey = `${context.company_id}:${context.timeline_version_id}:${context.step}`;
    let step = steps.get(stepKey);
    if (step === undefined) {
      step = decodeStep(context.step_definition);
      steps.set(stepKey, step);
    }
    let scheduling = schedulings.get(context.timeline_version_id);
    if (scheduling === undefined) {
      scheduling = decodeScheduling(context.scheduling);
      schedulings.set(context.timeline_version_id, scheduling);
    }
    let resolved = settings.get(context.company_id);
    if (resolved === undefined) {
      const overrides = decodeOverrides(context.engine_settings ?? {}, { onExcessProperty: "ignore" });
      // Settings that no longer decode (written by hand) fall back to the defaults rather than stop the company.
      resolved = ComplianceSettings.resolve(context.time_zone, overrides._tag === "Right" ? overrides.right : {});
      settings.set(context.company_id, resolved);
    }
    return { step, scheduling, settings: resolved };
  };
};

/** The guard's holds of a context: requests and detections under review, an active plan on schedule. */
export const holdsOf = (context: SendContext, engine: EngineSettings): ComplianceGuard.Hold[] => {
  const holds: ComplianceGuard.Hold[] = [];
  for (const { type } of context.holds) holds.push({ kind: requestHolds[type] ?? "dispute", until: null });
  if (context.active_plan) {
    if (context.next_installment === null) holds.push({ kind: "payment_plan", until: null });
    else {
      // The plan holds the debt until its next installment is `installmentGraceDays` late: a missed one resumes it.
      const until = new Date(
        Date.parse(`${context.next_installment}T00:00:00Z`) + (engine.installmentGraceDays + 1) * dayMs,
      );
      if (until.getTime() > context.now.getTime()) holds.push({ kind: "payment_plan", until });
    }
  }
  return holds;
};

/** The debt's executed contacts as the guard counts them. */
export const historyOf = (context: SendContext): ComplianceGuard.Contact[] =>
  context.history.flatMap((contact) => {
    const channel = Channel.fromFollowupType(contact.type as Parameters<typeof Channel.fromFollowupType>[0]);
    if (channel === null) return [];
    return [
      {
        channel,
        at: new Date(contact.at),
        conversation: Channel.isCall(channel) && conversationStatuses.has(contact.status),
      },
    ];
  });

/** The guard's view of the debtor, with the quiet hours the debtor chose on the debtor page. */
export const debtorOf = (context: SendContext): ComplianceGuard.Debtor => ({
  country: context.country,
  postalCode: context.postal_code,
  phone: context.phone,
  email: context.email,
  emailUndeliverable: context.email_undeliverable,
  address: postalLine(context),
  city: context.city,
  ...(context.debtor_quiet_start !== null && context.debtor_quiet_end !== null
    ? { quietHours: { start: context.debtor_quiet_start, end: context.debtor_quiet_end } }
    : {}),
});

/** The street part of the debt's postal address, or null. */
const postalLine = (context: SendContext): string | null => {
  const street = [context.street_number, context.street_address].filter((part) => part !== null && part.trim() !== "");
  if (street.length > 0) return street.join(" ");
  return context.address;
};

/** Where a step on `channel` is sent for this debt: the e-mail, the phone, or the postal address on one line. */
export const recipientOf = (context: SendContext, channel: TimelineDefinition.Channel): string => {
  if (channel === "email") return (context.email ?? "").trim();
  if (channel === "postmail") {
    return [
      postalLine(context),
      [context.postal_code, context.city].filter((part) => part !== null).join(" "),
      context.country,
    ]
      .filter((part) => part !== null && part.trim() !== "")
      .join(", ");
  }
  return (context.phone ?? "").trim();
};

/** The guard's whole input for a context. */
export const guardInputOf = (
  context: SendContext,
  decoded: StepContext,
  engine: EngineSettings,
): ComplianceGuard.Input => ({
  now: context.now,
  channel: decoded.step.channel,
  debtor: debtorOf(context),
  scheduling: ComplianceSettings.scheduling(decoded.scheduling),
  settings: decoded.settings,
  history: historyOf(context),
  optOuts: context.opt_outs.filter(Channel.isChannel),
  holds: holdsOf(context, engine),
  credits: context.current_credits,
});
