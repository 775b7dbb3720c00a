/**
 * Which provider sends a company's step (docs/decisions/0617): every
 * channel of a sandbox company goes to the sandbox provider; a live
 * company's e-mail goes over SMTP when `SMTP_URL` is set, its SMS and
 * WhatsApp through Twilio when Twilio and `PUBLIC_BASE_URL` are set
 * (docs/decisions/0630), its AI calls through Retell when `RETELL_API_KEY`,
 * `RETELL_FROM_NUMBER` and `PUBLIC_BASE_URL` are set (docs/decisions/0640),
 * its letters through Lob when `LOB_API_KEY` and `LOB_FROM_ADDRESS` are
 * (docs/decisions/0650). A live company's channel without its provider
 * fails, not retryable, with an error starting with
 * `channel_not_configured`, and nothing is sent.
 */
import type { Db, EventIds } from "@dc/db";
import type { TimelineDefinition } from "@dc/domain";
import type { ProviderSettings } from "@dc/providers";
import type { ChannelAdapter, ChannelAdapters, Outcome } from "./channel-adapter.ts";
import { lobAdapter } from "./lob-adapter.ts";
import { createProviderHttp, DEFAULT_PROVIDER_HTTP, type Sleep } from "./provider-http.ts";
import { retellAdapter } from "./retell-adapter.ts";
import { sandboxAdapter } from "./sandbox-adapter.ts";
import { smtpAdapter, type SmtpSettings } from "./smtp-adapter.ts";
import { twilioAdapter } from "./twilio-adapter.ts";

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
  /** The providers of the other channels (docs/decisions/0630); unset: none is configured. */
  readonly providers?: ProviderSettings;
  /** The api's external origin, which the callback URLs given to providers start with; unset: no provider that calls back is configured. */
  readonly publicBaseUrl?: string | undefined;
  /** The providers' backoff waits (tests observe them instead of sleeping). */
  readonly sleep?: Sleep;
  /** The engine's clock (how long a call has waited for its analysis); default the system's. */
  readonly now?: () => Date;
}

export const makeChannelAdapters = (db: Db, settings: ChannelSettings, ids?: EventIds): ChannelAdapters => {
  const sandbox = sandboxAdapter(db);
  const smtp = settings.smtp === undefined ? undefined : smtpAdapter(db, settings.smtp);
  const providers = settings.providers;
  const http =
    providers === undefined
      ? undefined
      : createProviderHttp({ ...DEFAULT_PROVIDER_HTTP, ...providers.limits }, settings.sleep);
  const twilio =
    providers?.twilio === undefined || settings.publicBaseUrl === undefined || http === undefined || ids === undefined
      ? undefined
      : twilioAdapter(db, providers.twilio, settings.publicBaseUrl, http, ids);
  const retell = providers?.retell;
  const calls =
    retell?.fromNumber === undefined || http === undefined || settings.publicBaseUrl === undefined || ids === undefined
      ? undefined
      : retellAdapter({
          settings: { ...retell, fromNumber: retell.fromNumber },
          http,
          callbackOrigin: settings.publicBaseUrl,
          ids,
          now: settings.now ?? (() => new Date()),
        });
  const lobSettings = providers?.lob;
  const lob =
    lobSettings?.fromAddress === undefined || http === undefined || ids === undefined
      ? undefined
      : lobAdapter(db, ids, { ...lobSettings, fromAddress: lobSettings.fromAddress }, http);
  const unconfigured = new Map<TimelineDefinition.Channel, ChannelAdapter>();
  const none = (channel: TimelineDefinition.Channel): ChannelAdapter => {
    let adapter = unconfigured.get(channel);
    if (adapter === undefined) {
      adapter = notConfigured(
        channel === "email"
          ? "SMTP_URL is not set, so live companies cannot send e-mail"
          : channel === "postmail"
            ? "LOB_API_KEY and LOB_FROM_ADDRESS are not set, so live companies cannot send letters"
            : channel === "sms" || channel === "whatsapp"
            ? "TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and PUBLIC_BASE_URL are not all set, so live companies cannot send " +
              channel
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
      if ((channel === "sms" || channel === "whatsapp") && twilio !== undefined) return twilio;
      if (channel === "ai_call" && calls !== undefined) return calls;
      if (channel === "postmail" && lob !== undefined) return lob;
      return none(channel);
    },
    close: async () => smtp?.close(),
  };
};
