/** Verifies Twilio's webhooks (`X-Twilio-Signature` with `TWILIO_AUTH_TOKEN`) and keys them for storage. */
import { Twilio } from "@dc/providers";
import type { AppServices } from "../services.ts";
import type { VerifyCallback } from "./receive-callback.ts";

export const verifyTwilio =
  (services: AppServices, kind: Twilio.TwilioCallbackKind): VerifyCallback =>
  ({ url, headers, body }) => {
    const twilio = services.config.providers.twilio;
    if (twilio === undefined) return undefined;
    const params = [...new URLSearchParams(body.toString("utf8"))];
    const signature = headers[Twilio.TWILIO_SIGNATURE_HEADER];
    if (
      !Twilio.verifyTwilioSignature(
        twilio.authToken,
        url,
        params,
        typeof signature === "string" ? signature : undefined,
      )
    ) {
      return undefined;
    }
    // A request of another Twilio account, signed with its own token, cannot get here; one of ours without a SID is kept out.
    const received = Twilio.receivedCallback(kind, params);
    return received === undefined ? [] : [received];
  };
