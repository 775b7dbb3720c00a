/**
 * The one interface every channel provider speaks to the engine (DESIGN.md
 * 8, docs/decisions/0600): the engine hands over rendered messages, each
 * with the idempotency key of its followup attempt, and maps the outcomes
 * onto followup statuses. An adapter writes no followup: it only talks to
 * its provider (the sandbox's provider is the `sandbox_messages` table).
 */
import type { TimelineDefinition } from "@dc/domain";
import type { Detection } from "@dc/providers";
import type { LetterParts } from "./letter.ts";

export interface OutboundMessage {
  readonly followupId: number;
  /** `<followup public id>:<attempt>`: the provider's idempotency key, the same for a resend of this attempt. */
  readonly idempotencyKey: string;
  readonly companyId: number;
  readonly debtId: number;
  readonly channel: TimelineDefinition.Channel;
  /** E-mail address, E.164 phone, or the postal address on one line. */
  readonly recipient: string;
  readonly subject: string | null;
  /** Rendered text; the HTML of an e-mail is derived from it by the adapter. */
  readonly body: string;
  readonly configuration: TimelineDefinition.Configuration;
  /** The company's clock at the send (a sandbox company's own clock). */
  readonly at: Date;
  /**
   * When the send began (its followup went `in_progress`), on the same clock:
   * set on a message the recovery rebuilds, whose `at` is the recovery's.
   */
  readonly startedAt?: Date;
  /** Who the debtor sees as sender (the company's name): the display name of an e-mail's From. */
  readonly senderName?: string;
  /** The language the body is written in (`en`, `fr`), for the e-mail's HTML part. */
  readonly language?: string;
  /** A letter's address in parts and the facts its page states (`postmail` only). */
  readonly letter?: LetterParts;
}

/** What a call provider reported of the call itself (docs/decisions/0640). */
export interface CallDetails {
  readonly callId: string;
  /** When the call started at the provider: the followup's `call_date`. */
  readonly startedAt: Date | null;
  readonly disconnectionReason: string | null;
  /** The recording's location at the provider, served to readers pre-signed (decision 0153). */
  readonly recordingUrl: string | null;
  readonly direction: "inbound" | "outbound" | null;
  /** Our number the call was made from. */
  readonly phoneNumberUsed: string | null;
}

export type Outcome =
  | {
      readonly status: "sent" | "delivered";
      readonly providerMessageId?: string;
      /** The stored object the provider printed (a letter's PDF): the followup's `pdf_object_key`. */
      readonly pdfObjectKey?: string;
    }
  | {
      readonly status: "no_answer" | "deal_found" | "deal_not_found" | "bad_behavior";
      readonly conversation: boolean;
      /** The call reached voicemail: the followup becomes a `voicemail` one. */
      readonly voicemail?: boolean;
      readonly durationMs?: number;
      readonly summary?: string;
      readonly promiseUntil?: Date;
      readonly providerMessageId?: string;
      readonly call?: CallDetails;
      readonly detections?: ReadonlyArray<Detection>;
    }
  | {
      readonly status: "failed";
      readonly retryable: boolean;
      readonly error: string;
      readonly providerMessageId?: string;
      readonly durationMs?: number;
      readonly call?: CallDetails;
    }
  /**
   * The provider took the message and reports its outcome later by callback
   * (an AI call): the followup stays `in_progress` with `provider_message_id`
   * set, and the callback's outcome goes through the outcome transaction
   * (docs/decisions/0630). Past the send timeout the recovery asks `lookup`.
   */
  | { readonly status: "accepted"; readonly providerMessageId: string };

/** An outcome that ends the send's `in_progress`: everything but `accepted`. */
export type FinalOutcome = Exclude<Outcome, { readonly status: "accepted" }>;

/** What `lookup` may also answer: the provider still works on it (a call in progress); asked again after the send timeout. */
export interface StillRunning {
  readonly status: "running";
}

export interface ChannelAdapter {
  /** Sends in order; answers one outcome per message, same order. Never throws for one message's failure. */
  readonly send: (messages: ReadonlyArray<OutboundMessage>) => Promise<ReadonlyArray<Outcome>>;
  /**
   * What the provider knows of a message sent before a crash, or accepted
   * and not reported since (by idempotency key, or by `providerMessageId`
   * when the followup holds one: a real adapter polls its provider there);
   * null = it never received it.
   */
  readonly lookup: (
    message: OutboundMessage,
    providerMessageId?: string | null,
  ) => Promise<Outcome | StillRunning | null>;
}

export interface ChannelAdapters {
  readonly adapterFor: (company: { readonly sandbox: boolean }, channel: TimelineDefinition.Channel) => ChannelAdapter;
  /** Closes the providers' connections (the SMTP pool) once no send is in flight. */
  readonly close?: () => Promise<void>;
}
