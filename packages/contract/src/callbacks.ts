/**
 * The routes channel providers call (docs/decisions/0630, docs/channels.md):
 * public, with no bearer token; the provider's request signature is the
 * credential. Each is declared once here: the api mounts its receiver for
 * each, and the OpenAPI document lists them with `security: []` and their
 * signature header. The company is the `company_id` in the path, part of
 * the URL the platform gives the provider; a provider registered once for
 * the whole platform (Lob) has a path without it, and the company is the
 * one our metadata names in the signed payload.
 */
import type { Tag } from "./tags.ts";

export interface ProviderCallback {
  readonly operationId: string;
  readonly method: "post";
  /** OpenAPI form, with `{company_id}` unless the payload names the company. */
  readonly path: string;
  readonly provider: "twilio" | "retell" | "lob";
  readonly tags: ReadonlyArray<Tag>;
  readonly summary: string;
  readonly description: string;
  readonly contentType: "application/x-www-form-urlencoded" | "application/json";
  readonly maxBytes: number;
  /**
   * The request header carrying the provider's signature, and how it is
   * computed; `timestampHeader`: the header of the signed time, which must be
   * recent (a replay is refused).
   */
  readonly signature: { readonly header: string; readonly description: string; readonly timestampHeader?: string };
  readonly success: { readonly status: number; readonly description: string; readonly contentType?: string };
}

export const CALLBACK_PREFIX = "/provider-callbacks";

/** The 403 every provider callback answers when its signature is missing or wrong: nothing is written. */
export const INVALID_SIGNATURE_MESSAGE = "Invalid or missing provider signature";

const twilioSignature = {
  header: "X-Twilio-Signature",
  description:
    "Base64 HMAC-SHA1, keyed by `TWILIO_AUTH_TOKEN`, of the full URL Twilio requested (the platform's " +
    "`PUBLIC_BASE_URL` followed by this path) and every POST parameter's name and value, sorted by name",
};

const twilioResponse = {
  status: 200,
  description: "Stored (or already stored: a retry or replay changes nothing); an empty TwiML `<Response/>`",
  contentType: "text/xml",
};

export const providerCallbacks = {
  twilioMessageStatus: {
    operationId: "twilioMessageStatus",
    method: "post",
    path: `${CALLBACK_PREFIX}/twilio/{company_id}/status`,
    provider: "twilio",
    tags: ["Provider callbacks"],
    summary: "Twilio message status callback",
    description:
      "The `StatusCallback` of every SMS and WhatsApp message the platform sends through Twilio. `MessageStatus` " +
      "`sent` keeps the followup `sent`; `delivered` and `read` make it `delivered`; `undelivered`, `failed` and " +
      "`canceled` make it `failed` with `ErrorCode` kept in its notes. A followup never moves backwards.",
    contentType: "application/x-www-form-urlencoded",
    maxBytes: 64 * 1024,
    signature: twilioSignature,
    success: twilioResponse,
  },
  twilioIncomingMessage: {
    operationId: "twilioIncomingMessage",
    method: "post",
    path: `${CALLBACK_PREFIX}/twilio/{company_id}/inbound`,
    provider: "twilio",
    tags: ["Provider callbacks"],
    summary: "Twilio incoming message webhook",
    description:
      "A debtor's reply to an SMS or WhatsApp message (`From`, `To`, `Body`, `MessageSid`). An opt-out keyword " +
      "(STOP, UNSUBSCRIBE, ARRET, STOPALL, CANCEL, END, QUIT) opts the debtor out of that channel for the debt; any " +
      "other reply counts as an answer, and one that reads as a dispute is suggested for review and holds the debt.",
    contentType: "application/x-www-form-urlencoded",
    maxBytes: 64 * 1024,
    signature: twilioSignature,
    success: twilioResponse,
  },
  retellCallEvents: {
    operationId: "retellCallEvents",
    method: "post",
    path: `${CALLBACK_PREFIX}/retell/{company_id}`,
    provider: "retell",
    tags: ["Provider callbacks"],
    summary: "Retell call webhook",
    description:
      "The `webhook_url` of every AI call the platform places through Retell: `{event, call}` for `call_started`, " +
      "`call_ended` and `call_analyzed`, each stored once per call and event (a retry or a replay changes nothing). " +
      "`call_started` changes nothing; `call_ended` records a call that reached no one (`no_answer`, a `voicemail` " +
      "followup, or `failed` with Retell's `disconnection_reason`); `call_analyzed` records a conversation's outcome " +
      "from its analysis, with `call_id`, `duration_ms`, the recording (`audio_url`), the summary, `direction` and " +
      "the number used, and suggests the disputes and objections it shows for review (docs/channels.md).",
    contentType: "application/json",
    maxBytes: 1024 * 1024,
    signature: {
      header: "x-retell-signature",
      description:
        "`v=<unix milliseconds>,d=<hex HMAC-SHA256 of the raw body followed by that timestamp, keyed by " +
        "RETELL_API_KEY>`; refused more than 5 minutes away from the platform's clock",
    },
    success: { status: 204, description: "Stored (or already stored: a retry or replay changes nothing)" },
  },
  lobLetterEvents: {
    operationId: "lobLetterEvents",
    method: "post",
    path: `${CALLBACK_PREFIX}/lob/letters`,
    provider: "lob",
    tags: ["Provider callbacks"],
    summary: "Lob letter webhook",
    description:
      "Lob's events for the letters the platform sends (one webhook for the platform's Lob account, subscribed to " +
      "the `letter.*` events); the company and followup are the ones the letter's metadata names. " +
      "`letter.delivered` makes the followup `delivered`; `letter.returned_to_sender`, `letter.deleted`, " +
      "`letter.failed` and `letter.rejected` make it `failed`, the event type kept in its notes; the tracking " +
      "steps in between (`letter.created`, `letter.rendered_pdf`, `letter.mailed`, `letter.in_transit`...) leave " +
      "it `sent`. An event is stored once by its id; one for a letter without our metadata is acknowledged and ignored.",
    contentType: "application/json",
    maxBytes: 512 * 1024,
    signature: {
      header: "Lob-Signature",
      timestampHeader: "Lob-Signature-Timestamp",
      description:
        "Hex HMAC-SHA256, keyed by `LOB_WEBHOOK_SECRET`, of `Lob-Signature-Timestamp`, a dot and the raw body; " +
        "the timestamp (Unix milliseconds) must be within 5 minutes of the platform's clock",
    },
    success: { status: 200, description: "Stored (or already stored: a retry or replay changes nothing)" },
  },
} as const satisfies Record<string, ProviderCallback>;
