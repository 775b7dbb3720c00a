/**
 * The one interface every channel provider speaks to the engine (DESIGN.md
 * 8, docs/decisions/0600): the engine hands over rendered messages, each
 * with the idempotency key of its followup attempt, and maps the outcomes
 * onto followup statuses. An adapter writes no followup: it only talks to
 * its provider (the sandbox's provider is the `sandbox_messages` table).
 */
import type { TimelineDefinition } from "@dc/domain";

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
  /** Who the debtor sees as sender (the company's name): the display name of an e-mail's From. */
  readonly senderName?: string;
  /** The language the body is written in (`en`, `fr`), for the e-mail's HTML part. */
  readonly language?: string;
}

export type Outcome =
  | { readonly status: "sent" | "delivered"; readonly providerMessageId?: string }
  | {
      readonly status: "no_answer" | "deal_found" | "deal_not_found" | "bad_behavior";
      readonly conversation: boolean;
      readonly voicemail?: boolean;
      readonly durationMs?: number;
      readonly summary?: string;
      readonly promiseUntil?: Date;
      readonly providerMessageId?: string;
    }
  | { readonly status: "failed"; readonly retryable: boolean; readonly error: string };

export interface ChannelAdapter {
  /** Sends in order; answers one outcome per message, same order. Never throws for one message's failure. */
  readonly send: (messages: ReadonlyArray<OutboundMessage>) => Promise<ReadonlyArray<Outcome>>;
  /** What the provider knows of a message sent before a crash (by idempotency key); null = it never received it. */
  readonly lookup: (message: OutboundMessage) => Promise<Outcome | null>;
}

export interface ChannelAdapters {
  readonly adapterFor: (company: { readonly sandbox: boolean }, channel: TimelineDefinition.Channel) => ChannelAdapter;
  /** Closes the providers' connections (the SMTP pool) once no send is in flight. */
  readonly close?: () => Promise<void>;
}
