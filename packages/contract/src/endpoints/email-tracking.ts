/**
 * The public routes of collection e-mails (docs/decisions/0655-0658): the
 * open pixel, the tracked links, the unsubscribe link with its RFC 8058
 * one-click post, and the bounce and complaint webhook of the e-mail
 * provider. None takes a bearer token: the e-mail routes carry a token
 * signed by the platform (`t`) naming the company and the followup, the
 * webhook HTTP Basic credentials. They answer images, redirects and small
 * pages rather than the API's JSON envelopes, so they are declared as pages.
 */
import { Schema } from "effect";
import { failurePages, page, type PageResponse } from "../endpoint.ts";
import { failureErrors, payloadTooLargeMessage } from "../errors.ts";

/** The largest body the unsubscribe post and the provider webhook read. */
export const EMAIL_FORM_BODY_BYTES = 4 * 1024;
export const EMAIL_WEBHOOK_BODY_BYTES = 256 * 1024;

/** The paths the worker writes into e-mails; the api serves them on `PUBLIC_BASE_URL`. */
export const emailTrackingPaths = {
  open: "/email/open",
  click: "/email/click",
  unsubscribe: "/email/unsubscribe",
  postmarkWebhook: "/email/webhooks/postmark",
} as const;

const TokenQuery = Schema.Struct({
  t: Schema.optional(
    Schema.String.annotations({
      description:
        "The token the platform signed into the e-mail (lower-case base32): names the company and the followup. " +
        "Sent twice, it is a bad link like a forged one: the pixel is still served and nothing is counted; the " +
        "links answer their 404 page",
    }),
  ),
});

const notFound = (what: string): PageResponse => ({
  status: 404,
  html: true,
  description: `The token is missing, forged or altered, or ${what}: nothing is recorded`,
});

export const openEmailPixel = page({
  operationId: "openEmailPixel",
  method: "get",
  path: emailTrackingPaths.open,
  tags: ["E-mail tracking"],
  summary: "Open pixel of a collection e-mail",
  description:
    "The 1x1 transparent GIF in the HTML part of every collection e-mail. A valid token counts an open of its followup " +
    "(`email_opened`, `email_open_count`, `email_first_opened_at`); a fetch by a known prefetcher (Gmail's image " +
    "proxy, Apple Mail Privacy Protection, link scanners: docs/channels.md) counts once per followup at most. A forged " +
    "or altered token gets the same image and counts nothing. An open that cannot be recorded (an unexpected failure, " +
    "the database unavailable) still gets the image: the failure is logged and nothing is counted, so a debtor never " +
    "sees a broken image because of the tracking.",
  query: TokenQuery,
  responses: [
    {
      status: 200,
      html: false,
      contentType: "image/gif",
      description: "The 43-byte transparent GIF, never cached",
      headers: { "Cache-Control": "`no-store`", "Referrer-Policy": "`no-referrer`" },
    },
  ],
});

export const followEmailLink = page({
  operationId: "followEmailLink",
  method: "get",
  path: emailTrackingPaths.click,
  tags: ["E-mail tracking"],
  summary: "Tracked link of a collection e-mail",
  description:
    "Every http(s) link of a collection e-mail's HTML part (the payment link first of all) goes through this route. " +
    "The token names the followup and the link's exact target, so it redirects only where the platform wrote: never " +
    "an open redirect. It counts a click of the followup (`email_clicked`, `email_click_count`); a known link scanner " +
    "counts once per followup at most and never marks `triggered_payment`. A click that cannot be recorded (an " +
    "unexpected failure, the database unavailable) is still redirected to its target: the failure is logged and " +
    "nothing is counted, so the debtor's way to the payment page never depends on the tracking.",
  query: TokenQuery,
  responses: [
    {
      status: 302,
      html: false,
      description: "To the link's target",
      headers: { Location: "The target written in the e-mail, exactly", "Referrer-Policy": "`no-referrer`" },
    },
    notFound("its target is not an http(s) address"),
  ],
});

export const showEmailUnsubscribe = page({
  operationId: "showEmailUnsubscribe",
  method: "get",
  path: emailTrackingPaths.unsubscribe,
  tags: ["E-mail tracking"],
  summary: "Unsubscribe page of a collection e-mail",
  description:
    "The unsubscribe link of every collection e-mail. Shows a small page (no script) whose button posts to the same " +
    "address; following the link changes nothing, so link scanners cannot unsubscribe anyone.",
  query: TokenQuery,
  responses: [
    { status: 200, html: true, description: "The confirmation page" },
    notFound("its followup no longer exists"),
    ...failurePages,
  ],
});

const OneClickForm = Schema.Struct({
  "List-Unsubscribe": Schema.optional(
    Schema.String.annotations({ description: "`One-Click`, as RFC 8058 mail clients send it; not required" }),
  ),
});

export const unsubscribeFromEmail = page({
  operationId: "unsubscribeFromEmail",
  method: "post",
  path: emailTrackingPaths.unsubscribe,
  tags: ["E-mail tracking"],
  summary: "Unsubscribe from collection e-mails (RFC 8058 one-click)",
  description:
    "The `List-Unsubscribe` URL of every collection e-mail (with `List-Unsubscribe-Post: List-Unsubscribe=One-Click`) " +
    "and the confirmation page's form post here. The debtor of the token's followup is opted out of e-mail for that " +
    "debt (`channel_opt_outs`, source `unsubscribe`): the engine sends it no further e-mail step. Idempotent.",
  query: TokenQuery,
  body: { contentType: "application/x-www-form-urlencoded", schema: OneClickForm, maxBytes: EMAIL_FORM_BODY_BYTES },
  responses: [
    { status: 200, html: true, description: "Unsubscribed (again, for a repeated post)" },
    notFound("its followup no longer exists"),
    { status: 413, html: true, description: "The body is larger than 4 KiB" },
    ...failurePages,
  ],
});

/** The answers of the Postmark webhook, in the API's envelopes. */
export const postmarkWebhookMessages = {
  recorded: "Recorded",
  ignored: "Ignored",
  notObject: "The body must be a JSON object",
  invalidCredentials: "Invalid webhook credentials",
  disabled: "The Postmark webhook is not enabled",
  tooLarge: payloadTooLargeMessage(EMAIL_WEBHOOK_BODY_BYTES),
} as const;

const PostmarkEvent = Schema.Struct({
  RecordType: Schema.String.annotations({ description: "`Bounce` or `SpamComplaint`; other records are acknowledged and ignored" }),
  Type: Schema.optional(Schema.String.annotations({ description: "Bounce type: `HardBounce`, `SoftBounce`, `SpamComplaint`..." })),
  TypeCode: Schema.optional(Schema.Number),
  Email: Schema.optional(Schema.String.annotations({ description: "The address that bounced or complained" })),
  Inactive: Schema.optional(Schema.Boolean.annotations({ description: "Postmark deactivated the address" })),
  Description: Schema.optional(Schema.String),
  Details: Schema.optional(Schema.String),
  BouncedAt: Schema.optional(Schema.String),
  MessageID: Schema.optional(Schema.String),
  Metadata: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
      description: "The `X-PM-Metadata-*` headers of the e-mail; `dc-bounce` holds the platform's bounce token",
    }),
  ),
}).annotations({ identifier: "PostmarkBounceEvent" });

export const receivePostmarkWebhook = page({
  operationId: "receivePostmarkWebhook",
  method: "post",
  path: emailTrackingPaths.postmarkWebhook,
  tags: ["E-mail tracking"],
  summary: "Postmark bounce and spam-complaint webhook",
  description:
    "Register this URL in Postmark as the Bounce and Spam Complaint webhook, with the HTTP Basic credentials of " +
    "`POSTMARK_WEBHOOK_CREDENTIALS` (Postmark's documented webhook authentication). A hard bounce or a complaint marks " +
    "the address undeliverable for the company named by the e-mail's signed `dc-bounce` metadata, and a hard bounce " +
    "fails its followup when it is still `sent`. No bearer token: the Basic credentials are checked in constant time. " +
    "A record that cannot be recorded (an unexpected failure, the database unavailable) is answered 500 or 503 with " +
    "nothing recorded, so Postmark delivers it again.",
  body: { contentType: "application/json", schema: PostmarkEvent, maxBytes: EMAIL_WEBHOOK_BODY_BYTES },
  responses: [
    {
      status: 200,
      html: false,
      description: "Received (recorded, or ignored when it names no e-mail of ours)",
      messages: [postmarkWebhookMessages.recorded, postmarkWebhookMessages.ignored],
    },
    {
      status: 400,
      html: false,
      description: "The body is not a JSON object: nothing is recorded",
      messages: [postmarkWebhookMessages.notObject],
    },
    {
      status: 401,
      html: false,
      description: "Missing or wrong Basic credentials: nothing is recorded",
      headers: { "WWW-Authenticate": '`Basic realm="email-webhooks"`' },
      messages: [postmarkWebhookMessages.invalidCredentials],
    },
    {
      status: 404,
      html: false,
      description: "`POSTMARK_WEBHOOK_CREDENTIALS` is not set: the webhook is disabled",
      messages: [postmarkWebhookMessages.disabled],
    },
    { status: 413, html: false, description: "The body is larger than 256 KiB", messages: [postmarkWebhookMessages.tooLarge], errorCode: "payload_too_large" },
  ],
  errors: failureErrors,
});
