/**
 * The webhook events the service sends (contract part 6, designed in
 * docs/decisions/0450): each type with its summary and the schema of its
 * payload `{type, timestamp, data}`. `data` uses the API's public shapes and
 * encrypted ids. The OpenAPI document lists them in its top-level `webhooks`
 * section; docs/webhooks.md explains delivery and signatures.
 */
import { Schema } from "effect";
import { Debt } from "./endpoints/debt-fields.ts";
import { Followup } from "./endpoints/followup-fields.ts";
import { Payment } from "./endpoints/payments.ts";
import { SnapshotAcknowledgement } from "./endpoints/snapshot-fields.ts";
import { TodoItem, todoAttachmentFields } from "./endpoints/todos.ts";
import { IsoOffsetDateTime, PlainDate } from "./formats.ts";
import { EncryptedId } from "./ids.ts";

const nullableString = (description: string) => Schema.NullOr(Schema.String).annotations({ description });

const { audio_url: _audio, pdf_url: _pdf, media_urls_expire_at: _expiry, ...followupFields } = Followup.fields;

/** A followup in an event: media links are not sent (they would expire before a retry), only whether media exist. */
export const WebhookFollowup = Schema.Struct({
  ...followupFields,
  has_audio: Schema.Boolean.annotations({ description: "A recording exists: GET /followups/{id} returns a fresh `audio_url`" }),
  has_pdf: Schema.Boolean.annotations({ description: "A PDF exists: GET /followups/{id} returns a fresh `pdf_url`" }),
}).annotations({
  identifier: "WebhookFollowup",
  description: "The followup as the API returns it, without the one-hour media links",
});

/** A todo in an event: its attachment without the one-hour link (GET /todos gives a fresh one). */
export const WebhookTodo = Schema.Struct({
  ...TodoItem.fields,
  attachment: Schema.NullOr(
    Schema.Struct(todoAttachmentFields).annotations({
      identifier: "WebhookTodoAttachment",
      description: "The file the debtor attached to a dispute: GET /todos returns it with a fresh `url`",
    }),
  ),
}).annotations({
  identifier: "WebhookTodo",
  description: "The todo as the API returns it, without the attachment's one-hour link",
});

export const DeletedDebt = Schema.Struct({
  id: EncryptedId("debt"),
  creditor_id: EncryptedId("creditor"),
  internal_id: nullableString("The client's own reference"),
  invoice_reference: nullableString("Invoice reference"),
  debtor_reference: nullableString("The client's reference for the debtor"),
  deleted_at: IsoOffsetDateTime,
}).annotations({ identifier: "DeletedDebt", description: "What identified the deleted debt" });

export const WebhookInstallment = Schema.Struct({
  id: EncryptedId("installment"),
  external_reference: nullableString("Partner reference of the installment"),
  amount: Schema.Number.annotations({ description: "Major units of the plan's `currency`" }),
  payment_date: PlainDate,
  status: Schema.Literal("pending", "paid", "cancelled"),
  paid_at: Schema.NullOr(IsoOffsetDateTime),
  external_payment_id: nullableString("Partner payment id of a paid installment"),
}).annotations({ identifier: "WebhookInstallment" });

export const WebhookPaymentPlan = Schema.Struct({
  id: EncryptedId("payment_plan"),
  debt_id: EncryptedId("debt").annotations({ description: "The debt holding the plan (a grouped debt's shared plan debt)" }),
  external_reference: nullableString("Partner reference of the plan"),
  status: Schema.Literal("active", "cancelled", "completed", "replaced"),
  start_date: Schema.NullOr(PlainDate),
  source: Schema.Literal("snapshot", "api", "portal"),
  currency: Schema.String,
  installments: Schema.Array(WebhookInstallment).annotations({ description: "By position" }),
}).annotations({ identifier: "WebhookPaymentPlan" });

export const PaymentPlanReplacement = Schema.Struct({
  debt_id: EncryptedId("debt"),
  payment_plan: Schema.NullOr(WebhookPaymentPlan).annotations({
    description: "The new active plan; null when the previous plan was cancelled without a replacement",
  }),
  replaced_payment_plan_id: Schema.NullOr(EncryptedId("payment_plan")).annotations({
    description: "The plan that was active before; null when the debt had none",
  }),
}).annotations({ identifier: "PaymentPlanReplacement" });

interface EventDeclaration {
  readonly summary: string;
  readonly description: string;
  readonly data: Schema.Schema.Any;
}

/** Every event type, in documentation order. */
export const webhookEvents = {
  "snapshot.completed": {
    summary: "A snapshot was applied",
    description: "The snapshot reached `completed`: `data` is its acknowledgement, with `counts` and `warnings`.",
    data: SnapshotAcknowledgement,
  },
  "snapshot.failed": {
    summary: "A snapshot failed",
    description: "The snapshot reached `failed`: `data` is its acknowledgement with `failure`. No debt was changed.",
    data: SnapshotAcknowledgement,
  },
  "debt.created": {
    summary: "A debt was created",
    description: "By POST /debts, the batch operation or a snapshot. `data` is the debt as GET /debts/{id} returns it.",
    data: Debt,
  },
  "debt.updated": {
    summary: "A debt changed",
    description: "Its fields, balance or status changed (API update or snapshot). `data` is the debt after the change.",
    data: Debt,
  },
  "debt.settled": {
    summary: "A debt was settled",
    description: "Its balance reached zero (a snapshot settled it, or payments covered it). `data` is the debt after settlement.",
    data: Debt,
  },
  "debt.deleted": {
    summary: "A debt was deleted",
    description: "DELETE /debts/{id}. `data` holds the ids and references the debt had.",
    data: DeletedDebt,
  },
  "followup.created": {
    summary: "A followup was created",
    description: "`data` is the followup without its one-hour media links (see `has_audio`, `has_pdf`).",
    data: WebhookFollowup,
  },
  "followup.updated": {
    summary: "A followup changed",
    description: "`data` is the followup after the change, without its one-hour media links.",
    data: WebhookFollowup,
  },
  "payment.recorded": {
    summary: "A payment was recorded",
    description: "A payment transaction as GET /debts/{id}/payments returns it (pay-downs, paid installments, balance deltas).",
    data: Payment,
  },
  "payment_plan.replaced": {
    summary: "A debt's payment plan was replaced",
    description: "A snapshot row's `payment_plan` (or an API change) replaced or cancelled the active plan of a debt.",
    data: PaymentPlanReplacement,
  },
  "debtor_request.created": {
    summary: "A debtor asked something on the debtor's page",
    description:
      "A dispute, a hardship declaration or a payment plan proposal arrived in the review queue as `suggested`. " +
      "`data` is the todo as GET /todos returns it, a dispute's attachment without its one-hour `url`.",
    data: WebhookTodo,
  },
  "todo.reviewed": {
    summary: "A todo was validated or rejected",
    description:
      "POST /todos/{id}/validate or /reject. `data` is the todo after the review (`review_status`, `note`, " +
      "`reviewed_at`). A validated plan proposal also sends `payment_plan.replaced`, a validated blocking dispute " +
      "`debt.updated`.",
    data: WebhookTodo,
  },
} as const satisfies Record<string, EventDeclaration>;

export type WebhookEventType = keyof typeof webhookEvents;

export const webhookEventTypes = Object.keys(webhookEvents) as ReadonlyArray<WebhookEventType>;

export const WebhookEventType = Schema.Literal(...(webhookEventTypes as [WebhookEventType, ...WebhookEventType[]])).annotations({
  identifier: "WebhookEventType",
  message: () => ({ message: `must be one of: ${webhookEventTypes.join(", ")}`, override: true }),
});

const pascal = (type: string) =>
  type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");

/** The body an endpoint receives for `type`: `{type, timestamp, data}`. */
export const webhookPayload = (type: WebhookEventType) =>
  Schema.Struct({
    type: Schema.Literal(type),
    timestamp: Schema.String.annotations({
      description: "When the change happened, ISO 8601 UTC (`Z`); stable across retries and replays",
      jsonSchema: { type: "string", format: "date-time", examples: ["2026-11-21T16:03:18.123Z"] },
    }),
    data: webhookEvents[type].data,
  }).annotations({ identifier: `${pascal(type)}Event`, description: webhookEvents[type].description });

/** The operationId of an event in the document's `webhooks` section, e.g. `debtCreatedWebhook`. */
export const webhookOperationId = (type: WebhookEventType): string => {
  const name = pascal(type);
  return `${name.charAt(0).toLowerCase()}${name.slice(1)}Webhook`;
};
