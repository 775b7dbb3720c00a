/**
 * One realistic payload of each webhook event, as the service sends it to
 * a subscribed endpoint (the document's `webhooks` section shows it as the
 * request body); test/examples.test.ts decodes each with its event schema.
 */
import type { WebhookEventType } from "../webhooks.ts";
import { debt, followup, ids, payment, snapshotAcknowledgement, todo, validatedTodo } from "./resources.ts";

const event = (type: WebhookEventType, timestamp: string, data: unknown) => ({ type, timestamp, data });

/** The followup as a webhook carries it: whether media exist, not their short-lived addresses. */
const { audio_url: _audio, pdf_url: _pdf, ...followupFields } = followup;
const webhookFollowup = { ...followupFields, has_audio: true, has_pdf: false };
const failure = {
  code: "invalid_snapshot_row",
  message: "2 rows break the snapshot rules",
  errors: [
    { row_index: 4, field: "remaining_amount", reason: "must be a number greater than or equal to 0" },
    { row_index: 9, field: "currency", reason: "must be an ISO 4217 currency code" },
  ],
  error_count: 2,
  errors_omitted: 0,
};

export const webhookEventExamples = {
  "snapshot.completed": event("snapshot.completed", "2026-11-21T06:00:05.118Z", snapshotAcknowledgement("completed")),
  "snapshot.failed": event("snapshot.failed", "2026-11-21T06:00:04.020Z", {
    ...snapshotAcknowledgement("pending"),
    status: "failed",
    failure,
    updated_at: "2026-11-21T06:00:04.020Z",
  }),
  "debt.created": event("debt.created", "2026-11-21T09:30:00.412Z", debt),
  "debt.updated": event("debt.updated", "2026-11-24T15:02:10.087Z", {
    ...debt,
    email: "jane.doe@example.org",
    updated_at: "2026-11-24T15:02:10+00:00",
  }),
  "debt.settled": event("debt.settled", "2026-11-30T06:00:07.530Z", {
    ...debt,
    remaining_amount: 0,
    status: "status.default.paid",
    updated_at: "2026-11-30T06:00:07+00:00",
  }),
  "debt.deleted": event("debt.deleted", "2026-12-02T11:20:45.001Z", {
    id: debt.id,
    creditor_id: debt.creditor_id,
    internal_id: debt.internal_id,
    invoice_reference: debt.invoice_reference,
    debtor_reference: debt.debtor_reference,
    deleted_at: "2026-12-02T11:20:45+00:00",
  }),
  "followup.created": event("followup.created", "2026-11-22T10:19:02.311Z", webhookFollowup),
  "followup.updated": event("followup.updated", "2026-11-23T09:00:00.204Z", {
    ...webhookFollowup,
    notes: "Close the case once the payment clears.",
    updated_at: "2026-11-23T09:00:00+00:00",
  }),
  "payment.recorded": event("payment.recorded", "2026-11-23T06:00:12.640Z", payment),
  "payment_plan.replaced": event("payment_plan.replaced", "2026-11-21T06:00:05.002Z", {
    debt_id: ids.debt,
    payment_plan: {
      id: "Qm9JcE1wX2ZXc0x6dGh3eUdVa0lQbmRfYWI",
      debt_id: ids.debt,
      external_reference: "PLAN-10042",
      status: "active",
      start_date: "2026-11-15",
      source: "snapshot",
      currency: "EUR",
      installments: [
        {
          id: "aW5zdGFsbG1lbnQtMTAwNDItMS1hY21lLXg",
          external_reference: "PLAN-10042-1",
          amount: 25,
          payment_date: "2026-11-15",
          status: "paid",
          paid_at: "2026-11-15T08:02:00+00:00",
          external_payment_id: "PAY-88213",
        },
        {
          id: "aW5zdGFsbG1lbnQtMTAwNDItMi1hY21lLXg",
          external_reference: "PLAN-10042-2",
          amount: 47.75,
          payment_date: "2026-12-15",
          status: "pending",
          paid_at: null,
          external_payment_id: null,
        },
        {
          id: "aW5zdGFsbG1lbnQtMTAwNDItMy1hY21lLXg",
          external_reference: "PLAN-10042-3",
          amount: 47.75,
          payment_date: "2027-01-15",
          status: "pending",
          paid_at: null,
          external_payment_id: null,
        },
      ],
    },
    replaced_payment_plan_id: "cHJldmlvdXMtcGxhbi0xMDA0Mi1hY21lLXg",
  }),
  "debtor_request.created": event("debtor_request.created", "2026-11-20T17:42:00.318Z", todo),
  "todo.reviewed": event("todo.reviewed", "2026-11-21T09:15:00.052Z", validatedTodo),
} as const satisfies Record<WebhookEventType, unknown>;
