/** The channel providers' protocols: one module per provider, and the events their callbacks become. */
import type { ProviderEvent, ProviderName } from "./events.ts";
import * as Lob from "./lob.ts";
import * as Retell from "./retell.ts";
import * as Twilio from "./twilio.ts";

export * from "./events.ts";
export * as Lob from "./lob.ts";
export * as Retell from "./retell.ts";
export * as Twilio from "./twilio.ts";

/** A stored callback of `provider` as the platform's event (the worker's one entry point). */
export const parseProviderEvent = (provider: ProviderName, payload: unknown): ProviderEvent => {
  switch (provider) {
    case "twilio":
      return Twilio.parseEvent(payload);
    case "retell":
      return Retell.parseEvent(payload);
    case "lob":
      return Lob.parseEvent(payload);
    default:
      return { _tag: "Ignored", reason: `no parser for provider ${provider}` };
  }
};
export * from "./settings.ts";
