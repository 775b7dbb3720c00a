/**
 * The debtor page (docs/decisions/0670-0674) and the payment provider's
 * notifications: browser-facing pages and a provider callback, outside the
 * bearer-token api. The link's token is the credential of the pages; the
 * `Stripe-Signature` header is the webhook's.
 */
import { DisputeAttachment } from "@dc/domain";
import { Schema } from "effect";
import { failurePages, page } from "../endpoint.ts";
import { failureErrors, payloadTooLargeMessage } from "../errors.ts";

/** Largest form a debtor page accepts (a dispute's text is at most 2,000 characters). */
export const DEBTOR_PAGE_FORM_BYTES = 16 * 1024;
/**
 * Largest `multipart/form-data` post: the form's fields and one attachment of
 * at most `DisputeAttachment.maxBytes`, with room for the parts' headers.
 */
export const DEBTOR_PAGE_MULTIPART_BYTES = DisputeAttachment.maxBytes + DEBTOR_PAGE_FORM_BYTES + 4 * 1024;
/** Most parts a multipart post may have: every field of the form once, and the file. */
export const DEBTOR_PAGE_MULTIPART_PARTS = 16;
/** Largest provider notification accepted. */
export const PAYMENT_WEBHOOK_BYTES = 256 * 1024;

const field = (description: string) => Schema.optional(Schema.String.annotations({ description }));

const PagePath = Schema.Struct({
  token: Schema.String.annotations({ description: "The signed link token (48 URL-safe characters) of the debt's `payment_link`" }),
});

const PageQuery = Schema.Struct({
  lang: field("`en` or `fr`: overrides the language the debtor's country chose"),
  done: field("What the previous form did (`paid`, `cancelled`, `plan`, `dispute`, `hardship`, `preferences`): shown as a notice"),
  checkout: field("A sandbox checkout session: shows the sandbox provider's confirmation page (sandbox companies only)"),
});

export const DebtorPageForm = Schema.Struct({
  csrf_token: field("The anti-forgery token of the page, bound to the browser's cookie and the link"),
  action: field("`verify`, `pay`, `plan`, `dispute`, `hardship`, `preferences`, `sandbox_complete` or `sandbox_cancel`"),
  lang: field("`en` or `fr`"),
  name: field("`verify`: the debtor's last name (or the debtor company's name)"),
  second: field("`verify`: the postal code, or the date of birth (`YYYY-MM-DD`) when the debt has no postal code"),
  amount: field("`pay`: the amount, in the debt's currency, between one unit (or the balance when less) and the balance"),
  count: field("`plan`: number of monthly installments"),
  first_date: field("`plan`: first installment's date, `YYYY-MM-DD`"),
  reason: field("`dispute`: `not_mine`, `already_paid`, `wrong_amount`, `goods_or_service` or `other`"),
  message: field("`dispute` and `hardship`: free text, at most 2,000 characters"),
  quiet_start: field("`preferences`: start of the debtor's quiet hours, `HH:MM`"),
  quiet_end: field("`preferences`: end of the debtor's quiet hours, `HH:MM`"),
  session: field("`sandbox_complete`: the sandbox checkout session"),
}).annotations({ identifier: "DebtorPageForm" });

const attachmentLimit = `${DisputeAttachment.maxBytes / (1024 * 1024)} MiB`;

/** The dispute form as `multipart/form-data`: the fields above and an optional file. */
export const DebtorPageMultipartForm = Schema.Struct({
  ...DebtorPageForm.fields,
  attachment: Schema.optional(
    Schema.String.annotations({
      description:
        `\`dispute\`: one optional file, a PDF, JPEG or PNG (told by its content, not its name or declared type) of ` +
        `at most ${attachmentLimit}; an empty file part (no file chosen) is no attachment`,
      jsonSchema: { type: "string", format: "binary" },
    }),
  ),
}).annotations({ identifier: "DebtorPageMultipartForm" });

const linkErrors = [
  { status: 404, html: true, description: "The link is forged, altered, or its debt is gone" },
  { status: 410, html: true, description: "The link expired (links live 90 to 180 days; every new message carries a fresh one)" },
];

export const showDebtorPage = page({
  operationId: "showDebtorPage",
  method: "get",
  path: "/pay/{token}",
  tags: ["Debtor page"],
  summary: "The debtor page of a debt",
  description:
    "Without a session: the identity check (last name, and the postal code, or the date of birth when the debt has no " +
    "postal code). With one: the creditor, what the debt is for, the balance and currency, the due date, the active " +
    "plan's installments, the payments made, and the forms to pay, propose a plan, dispute, declare hardship and set " +
    "contact preferences. English or French by the debtor's country; `lang` overrides. A query parameter sent twice " +
    "is ignored, as an unknown value is: the page shows as without it (`lang` twice: the country's language). No " +
    "scripts; a strict CSP.",
  params: PagePath,
  query: PageQuery,
  responses: [{ status: 200, html: true, description: "The identity check, or the debt once checked" }, ...linkErrors, ...failurePages],
});

export const submitDebtorPage = page({
  operationId: "submitDebtorPage",
  method: "post",
  path: "/pay/{token}",
  tags: ["Debtor page"],
  summary: "The forms of the debtor page",
  description:
    "Every form posts here with its `action` and the page's anti-forgery token. `verify` opens a 30-minute session " +
    "(HttpOnly, SameSite=Lax cookie); failed checks are limited to 5 per link and 20 per address in 15 minutes. " +
    "`pay` redirects to the payment provider's checkout (the sandbox provider's page for sandbox companies); `plan`, " +
    "`dispute` and `hardship` record a debtor request awaiting review, which holds the debt's timeline; `preferences` " +
    "records refused channels and quiet hours, which the timeline's guard obeys. The dispute form posts as " +
    "`multipart/form-data` with an optional `attachment` (PDF, JPEG or PNG, at most " + attachmentLimit + "), stored " +
    "with the dispute in one transaction and shown to the company on its todo; any form may post that way.",
  params: PagePath,
  body: {
    contentType: "application/x-www-form-urlencoded",
    schema: DebtorPageForm,
    maxBytes: DEBTOR_PAGE_FORM_BYTES,
    multipart: {
      schema: DebtorPageMultipartForm,
      maxBytes: DEBTOR_PAGE_MULTIPART_BYTES,
      files: { attachment: DisputeAttachment.types },
    },
  },
  responses: [
    { status: 303, html: false, description: "Done: back to the page with `done`, or on to the checkout", headers: { Location: "Where to go next" } },
    {
      status: 400,
      html: true,
      description:
        "A field is invalid (an attachment that is not a PDF, JPEG or PNG, or more than one file, included): the " +
        "page names it in the debtor's language; nothing was written",
    },
    { status: 401, html: true, description: "The identity check failed, or the session is missing or expired" },
    { status: 403, html: true, description: "The anti-forgery token is missing or not this browser's for this link" },
    { status: 409, html: true, description: "The debt cannot be paid online (settled, cancelled, or no provider configured)" },
    {
      status: 413,
      html: true,
      description: `The attachment is larger than ${attachmentLimit} (or the post larger than its limit): the page names the field; nothing was written`,
    },
    { status: 422, html: true, description: "The plan proposal breaks the creditor's rules" },
    { status: 429, html: true, description: "Too many failed identity checks; `Retry-After` says when to try again" },
    { status: 502, html: true, description: "The payment provider could not be reached" },
    ...linkErrors,
    ...failurePages,
  ],
});

export const StripeEvent = Schema.Struct({
  id: Schema.String,
  type: Schema.String.annotations({ description: "Only `checkout.session.completed` records a payment; others are acknowledged" }),
  data: Schema.Struct({
    object: Schema.Struct({
      id: Schema.String,
      amount_total: Schema.optional(Schema.Number),
      currency: Schema.optional(Schema.String),
      payment_status: Schema.optional(Schema.String),
      payment_intent: Schema.optional(Schema.NullOr(Schema.String)),
      metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
    }),
  }),
}).annotations({ identifier: "StripeEvent" });

/** The answers of the payment provider's webhook, in the API's envelopes. */
export const stripeWebhookMessages = {
  recorded: "Recorded",
  alreadyRecorded: "Already recorded",
  ignored: "Ignored",
  missingSignature: "Missing or stale Stripe-Signature",
  notEvent: "The body is not a Stripe event",
  noAmount: "The session has no amount",
  signatureMismatch: "Stripe-Signature does not match the body",
  unknownDebt: "Unknown debt",
  tooLarge: payloadTooLargeMessage(PAYMENT_WEBHOOK_BYTES),
  notConfigured: "No payment provider is configured",
} as const;

export const receiveStripeWebhook = page({
  operationId: "receiveStripeWebhook",
  method: "post",
  path: "/payments/stripe/webhook",
  tags: ["Debtor page"],
  summary: "Payment provider notifications (Stripe-compatible)",
  description:
    "Signed with `Stripe-Signature` (`t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\">` under " +
    "`STRIPE_WEBHOOK_SECRET`, at most 5 minutes old). A paid `checkout.session.completed` records a payment on the " +
    "debt its metadata names (provider `stripe`, `external_payment_id` the payment intent, or the session), lowers the " +
    "balance, emits `payment.recorded`, and stops the timeline when the debt is paid. A replayed notification records " +
    "nothing more. No bearer token: the signature is the credential. A notification that cannot be recorded (an " +
    "unexpected failure, the database unavailable) is answered 500 or 503 with nothing recorded, so the provider " +
    "delivers it again.",
  body: { contentType: "application/json", schema: StripeEvent, maxBytes: PAYMENT_WEBHOOK_BYTES },
  responses: [
    {
      status: 200,
      html: false,
      description: "Acknowledged (recorded, already recorded, or an event type not handled)",
      messages: [stripeWebhookMessages.recorded, stripeWebhookMessages.alreadyRecorded, stripeWebhookMessages.ignored],
    },
    {
      status: 400,
      html: false,
      description: "The signature is missing or stale, or the body is not a paid session's event: nothing is recorded",
      messages: [stripeWebhookMessages.missingSignature, stripeWebhookMessages.notEvent, stripeWebhookMessages.noAmount],
    },
    { status: 403, html: false, description: "The signature does not match", messages: [stripeWebhookMessages.signatureMismatch] },
    {
      status: 404,
      html: false,
      description: "The debt the metadata names is not known, or no webhook secret is configured: nothing is recorded",
      messages: [stripeWebhookMessages.unknownDebt, stripeWebhookMessages.notConfigured],
    },
    { status: 413, html: false, description: "The body is larger than 256 KiB", messages: [stripeWebhookMessages.tooLarge], errorCode: "payload_too_large" },
  ],
  errors: failureErrors,
});
