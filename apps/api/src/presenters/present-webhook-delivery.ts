/**
 * A webhook delivery's wire form: its event, its state and its latest
 * attempts (newest first, as `listLatestAttempts` returns them). The next
 * attempt's time is shown only while the delivery is pending.
 */
import type { Endpoints, WebhookEventType } from "@dc/contract";
import type { AttemptRow, listEndpointDeliveries } from "@dc/db";

export type WebhookDeliveryView = Endpoints["listWebhookDeliveries"]["success"]["schema"]["Type"]["data"][number];
type DeliveryRow = Awaited<ReturnType<typeof listEndpointDeliveries>>["rows"][number];

export const presentWebhookDelivery = (row: DeliveryRow, attempts: ReadonlyArray<AttemptRow>): WebhookDeliveryView => ({
  event_id: row.public_id,
  event_type: row.type as WebhookEventType,
  event_timestamp: row.occurred_at.toISOString(),
  status: row.status,
  attempt_count: row.attempt_count,
  next_attempt_at: row.status === "pending" ? row.next_attempt_at : null,
  created_at: row.created_at,
  updated_at: row.updated_at,
  completed_at: row.completed_at,
  attempts: attempts.map((attempt) => ({
    attempted_at: attempt.attempted_at,
    status_code: attempt.status_code,
    duration_ms: attempt.duration_ms,
    error: attempt.error,
    response_body_excerpt: attempt.response_body_excerpt,
  })),
});
