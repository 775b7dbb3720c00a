/** Mounts the provider callback routes declared in the contract (`providerCallbacks`) on the app's router. */
import { type ProviderCallback, providerCallbacks } from "@dc/contract";
import type Router from "@koa/router";
import type { AppServices } from "../services.ts";
import { receiveCallback, type VerifyCallback } from "./receive-callback.ts";
import { verifyRetell } from "./retell-callbacks.ts";
import { verifyLob } from "./lob-callbacks.ts";
import { verifyTwilio } from "./twilio-callbacks.ts";

type CallbackName = keyof typeof providerCallbacks;

/** Each declared callback's verifier: a new declaration without one does not compile. */
const verifiers = (services: AppServices): Record<CallbackName, VerifyCallback> => ({
  twilioMessageStatus: verifyTwilio(services, "status"),
  twilioIncomingMessage: verifyTwilio(services, "inbound"),
  retellCallEvents: verifyRetell(services),
  lobLetterEvents: verifyLob(services),
});

const koaPath = (callback: ProviderCallback): string => callback.path.replace(/\{([a-z_]+)\}/g, ":$1");

export const mountProviderCallbacks = (router: Router, services: AppServices): void => {
  const verify = verifiers(services);
  for (const [name, callback] of Object.entries(providerCallbacks) as Array<[CallbackName, ProviderCallback]>) {
    router.post(koaPath(callback), receiveCallback(services, callback, verify[name]));
  }
};
