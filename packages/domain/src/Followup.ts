/**
 * Followups: the types, statuses and directions of contact activities, and
 * the credit cost rule (contract 2.5): calls cost 1 to 5 credits by duration,
 * SMS 1 per message, WhatsApp 1 to 2 per message, e-mail and paper nothing.
 * Only executed followups are charged.
 */
import { Schema } from "effect";

/** Followup types (contract 2.4). */
export const types = ["call", "email", "sms", "whatsapp", "voicemail", "manual_call", "physical", "postmail"] as const;
export type FollowupType = (typeof types)[number];

/** Schema of a followup type; an invalid value is reported with the list of valid types. */
export const FollowupType = Schema.Literal(...types).annotations({
  identifier: "FollowupType",
  message: () => ({ message: `must be one of: ${types.join(", ")}`, override: true }),
});

/** Followup statuses (contract 3.1). */
export const statuses = [
  "on_hold",
  "scheduled",
  "in_progress",
  "sent",
  "delivered",
  "deal_found",
  "no_answer",
  "deal_not_found",
  "bad_behavior",
  "failed",
  "cancelled",
] as const;
export type FollowupStatus = (typeof statuses)[number];

/** Schema of a followup status. */
export const FollowupStatus = Schema.Literal(...statuses).annotations({
  identifier: "FollowupStatus",
  message: () => ({ message: `must be one of: ${statuses.join(", ")}`, override: true }),
});

/** Status of a followup created without one. */
export const defaultStatus: FollowupStatus = "on_hold";

/** Call directions. */
export const directions = ["inbound", "outbound"] as const;
export type Direction = (typeof directions)[number];

/** Schema of a followup direction. */
export const Direction = Schema.Literal(...directions).annotations({
  identifier: "FollowupDirection",
  message: () => ({ message: "must be one of: inbound, outbound", override: true }),
});

const executedStatuses: ReadonlySet<FollowupStatus> = new Set<FollowupStatus>([
  "sent",
  "delivered",
  "deal_found",
  "no_answer",
  "deal_not_found",
  "bad_behavior",
]);

/** Tells whether a followup in this status was carried out (and so is charged). */
export const isExecuted = (status: FollowupStatus): boolean => executedStatuses.has(status);

/** What the cost of one followup depends on. */
export interface CostInput {
  readonly type: FollowupType;
  /** Call length; absent or 0 for a call that never connected. */
  readonly durationMs?: number | null | undefined;
  /** Messages sent (SMS, WhatsApp); defaults to 1. */
  readonly messageCount?: number | undefined;
  /** WhatsApp message with media (image, document, audio). */
  readonly hasMedia?: boolean | undefined;
}

const minuteMs = 60_000;
export const maxCallCredits = 5;

/**
 * Credits a followup costs if executed: calls, manual calls and voicemails 1
 * per started minute (minimum 1, maximum 5); SMS 1 per message; WhatsApp 1
 * per message, 2 with media; e-mail, physical visits and post 0.
 *
 * @example creditCost({ type: "call", durationMs: 61_000 }) // 2
 */
export const creditCost = (input: CostInput): number => {
  const messages = Math.max(0, Math.floor(input.messageCount ?? 1));
  switch (input.type) {
    case "call":
    case "manual_call":
    case "voicemail": {
      const started = Math.ceil(Math.max(0, input.durationMs ?? 0) / minuteMs);
      return Math.min(maxCallCredits, Math.max(1, started));
    }
    case "sms":
      return messages;
    case "whatsapp":
      return messages * (input.hasMedia === true ? 2 : 1);
    case "email":
    case "physical":
    case "postmail":
      return 0;
  }
};

/** Credits actually charged for a followup: its cost when executed, else 0. */
export const chargedCredits = (input: CostInput & { readonly status: FollowupStatus }): number =>
  isExecuted(input.status) ? creditCost(input) : 0;
