/**
 * Which provider sends a company's step (docs/decisions/0617): every
 * channel of a sandbox company goes to the sandbox provider; a live
 * company's e-mail goes over SMTP when `SMTP_URL` is set. A live company's
 * other channels have no real provider yet, nor its e-mail without SMTP:
 * their steps fail, not retryable, with an error starting with
 * `channel_not_configured`, and nothing is sent.
 */
import type { Db } from "@dc/db";
import type { TimelineDefinition } from "@dc/domain";
import type { ChannelAdapter, ChannelAdapters, Outcome } from "./channel-adapter.ts";
import { sandboxAdapter } from "./sandbox-adapter.ts";
import { smtpAdapter, type SmtpSettings } from "./smtp-adapter.ts";

/** The reason a live company's step fails when its channel has no provider. */
export const CHANNEL_NOT_CONFIGURED = "channel_not_configured";

/** A provider that sends nothing: every message fails for good, and a lookup says the same. */
const notConfigured = (why: string): ChannelAdapter => {
  const outcome: Outcome = { status: "failed", retryable: false, error: `${CHANNEL_NOT_CONFIGURED}: ${why}` };
  return {
    send: (messages) => Promise.resolve(messages.map(() => outcome)),
    lookup: () => Promise.resolve(outcome),
  };
};

export interface ChannelSettings {
  /** Unset: live companies' e-mail is not configured. */
  readonly smtp: SmtpSettings | undefined;
}

export const makeChannelAdapters = (db: Db, settings: ChannelSettings): ChannelAdapters => {
  const sandbox = sandboxAdapter(db);
  const smtp = settings.smtp === undefined ? undefined : smtpAdapter(db, settings.smtp);
  const unconfigured = new Map<TimelineDefinition.Channel, ChannelAdapter>();
  const none = (channel: TimelineDefinition.Channel): ChannelAdapter => {
    let adapter = unconfigured.get(channel);
    if (adapter === undefined) {
      adapter = notConfigured(
        channel === "email"
          ? "SMTP_URL is not set, so live companies cannot send e-mail"
          : `live ${channel} steps have no provider yet; only sandbox companies can use them`,
      );
      unconfigured.set(channel, adapter);
    }
    return adapter;
  };
  return {
    adapterFor: (company, channel) => {
      if (company.sandbox) return sandbox;
      if (channel === "email" && smtp !== undefined) return smtp;
      return none(channel);
    },
    close: async () => smtp?.close(),
  };
};
