/**
 * What a provider's callback means to the platform, whatever the provider:
 * the typed events the worker applies (docs/decisions/0630). A provider
 * module parses its stored callback payloads into these; the worker never
 * reads a provider's own field names.
 */

/** The providers whose callbacks the platform receives: the `provider` column of `provider_events`. */
export type ProviderName = "twilio" | "retell" | "lob";

/**
 * A callback as the api stores it (`provider_events`): the provider's key for
 * it, unique per company and provider so a replayed or duplicated callback is
 * stored once, and the payload the provider module parses later.
 */
export interface ReceivedCallback {
  readonly eventKey: string;
  readonly payload: unknown;
  /** The company our metadata names in the signed payload, for a provider whose callback URL does not carry it (Lob). */
  readonly companyPublicId?: string | null;
}

/** Where a delivered message stands; a later update never moves a followup backwards (`sent` < `delivered`, `failed`). */
export type DeliveryStatus = "sent" | "delivered" | "failed";

/** A message already `sent` (sms, whatsapp, letter) moved on at its provider. */
export interface DeliveryUpdate {
  readonly _tag: "DeliveryUpdate";
  readonly providerMessageId: string;
  readonly status: DeliveryStatus;
  /** The provider's error code of a failure (Twilio's `ErrorCode`), kept on the followup. */
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
}

/** The final outcome of a followup still `in_progress` (an AI call's result), for the engine's outcome transaction. */
export interface FinalOutcome {
  readonly _tag: "FinalOutcome";
  readonly providerMessageId: string;
  /** Our followup's public id when the provider echoes our metadata; else the followup is found by `providerMessageId`. */
  readonly followupPublicId: string | null;
  readonly outcome: CallResult;
}

/** A dispute or an objection a call's analysis shows (docs/decisions/0641). */
export interface Detection {
  readonly type: "ai_dispute" | "objection";
  /** The debtor's words behind it, or the call's summary. */
  readonly excerpt: string | null;
}

export interface CallResult {
  readonly status: "no_answer" | "deal_found" | "deal_not_found" | "bad_behavior" | "failed";
  /** The provider's call id (`call_id`). */
  readonly callId: string;
  /** When the call started at the provider; null for one never connected. */
  readonly startedAt: Date | null;
  /** The debtor picked up and spoke. */
  readonly conversation: boolean;
  readonly voicemail: boolean;
  readonly durationMs: number | null;
  readonly summary: string | null;
  readonly promiseUntil: Date | null;
  readonly disconnectionReason: string | null;
  readonly recordingUrl: string | null;
  readonly direction: "inbound" | "outbound" | null;
  readonly phoneNumberUsed: string | null;
  /** For `failed`: why, kept in the followup's notes. */
  readonly error: string | null;
  /** For `failed`: whether the step may be tried again. */
  readonly retryable: boolean;
  readonly detections: ReadonlyArray<Detection>;
}

/** A message a debtor sent us (a reply to an SMS or a WhatsApp message). */
export interface InboundMessage {
  readonly _tag: "InboundMessage";
  readonly channel: "sms" | "whatsapp";
  /** The debtor's number, E.164, without a channel prefix. */
  readonly from: string;
  /** Our sender number, E.164, without a channel prefix. */
  readonly to: string;
  readonly body: string;
  readonly providerMessageId: string;
}

/** A callback that changes nothing (an intermediate status, an event type we do not use): stored, then marked processed. */
export interface Ignored {
  readonly _tag: "Ignored";
  readonly reason: string;
}

export type ProviderEvent = DeliveryUpdate | FinalOutcome | InboundMessage | Ignored;
