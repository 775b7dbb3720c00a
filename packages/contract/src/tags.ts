/**
 * The tags that group operations in the OpenAPI document, in the order the
 * document lists them, with the description each tag carries there. Typing
 * `Endpoint.tags` with these names means a new tag cannot be used without a
 * description.
 */
export const tagDescriptions = {
  "OAuth 2.0":
    "Access tokens (client credentials, authorization code with PKCE, refresh token), revocation and the browser " +
    "authorization pages. Access tokens live 3600 seconds.",
  Company:
    "The authenticated company: profile, all-time statistics and credit balance (scope `company:read`), and its " +
    "users (scope `users:read`).",
  Followups:
    "Logged or scheduled contact activities on a debt (calls, e-mails, SMS, WhatsApp, mail): create, list, read and " +
    "update. Media URLs in reads are pre-signed for 1 hour.",
  "E-mail tracking":
    "The public routes of collection e-mails: open pixel, tracked links, unsubscribe (RFC 8058 one-click) and the " +
    "e-mail provider's bounce webhook. No bearer token: a token signed by the platform, or the webhook's Basic credentials.",
  Media: "Pre-signed links to followup recordings and documents: the signature is the credential, no bearer token.",
  Todos: "Aggregate todo statistics over a period, and the debtor requests and AI detections awaiting review.",
  Timelines:
    "The company's automated collection schedules, whose ids are reused when creating or updating debts, and each " +
    "debt's run of its timeline: read where it stands, pause, resume, restart.",
  Debtors: "The debtors of the company's debts, each with the ids of its debts (scope `debtors:read`).",
  Creditors: "The entities that issue the company's debts: list, create, read (with totals) and update.",
  Debts:
    "Debts and credit notes: create (singly or in a batch), list (all, by creditor, by debtor), read, update, delete, " +
    "and the payments recorded on a debt.",
  Snapshots:
    "Synchronise a campaign's receivables with a complete snapshot, sent in one request or as ordered chunks, applied " +
    "asynchronously; poll the status resource.",
  Sandbox:
    "Sandbox companies only (a live company gets 404): their own clock, read and advanced to run their timelines in " +
    "seconds, and the messages their channels kept instead of sending. See docs/sandbox.md for the magic values.",
  "Provider callbacks":
    "The requests channel providers (Twilio, Retell, Lob) send the platform: delivery reports, replies and call " +
    "results. No bearer token: each is verified with its provider's request signature, and refused with 403 when " +
    "unsigned or wrongly signed (docs/channels.md).",
  "Debtor page":
    "The debtor's own pages, reached by the signed link of each debt's `payment_link`: an identity check, the debt, " +
    "payment, plan proposals, disputes, hardship and contact preferences; and the payment provider's signed " +
    "notifications. No bearer token: the link, the browser session and the provider's signature are the credentials.",
  Webhooks: "The company's webhook endpoints, their delivery history, secret rotation and replays.",
  "Webhook events": "The signed requests the service sends to the company's webhook endpoints (Standard Webhooks v1).",
} as const;

export type Tag = keyof typeof tagDescriptions;
