/**
 * The webhook event types the outbox accepts. The contract's catalogue
 * (packages/contract/src/webhooks.ts) documents each type's payload; an api
 * test checks that both lists agree, since the db package cannot import the
 * contract.
 */

export const webhookEventTypes = [
  "snapshot.completed",
  "snapshot.failed",
  "debt.created",
  "debt.updated",
  "debt.settled",
  "debt.deleted",
  "followup.created",
  "followup.updated",
  "payment.recorded",
  "payment_plan.replaced",
  "debtor_request.created",
  "todo.reviewed",
] as const;

export type WebhookEventType = (typeof webhookEventTypes)[number];

const known: ReadonlySet<string> = new Set(webhookEventTypes);

export const isWebhookEventType = (value: string): value is WebhookEventType => known.has(value);
