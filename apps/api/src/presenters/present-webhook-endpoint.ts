/** A webhook endpoint's wire form (never its secret). */
import type { WebhookEndpoint, WebhookEventType } from "@dc/contract";
import type { EndpointRow } from "@dc/db";
import type { DomainIds as Ids } from "@dc/db";

export const presentWebhookEndpoint = (ids: Ids, row: EndpointRow, now: Date): WebhookEndpoint => ({
  id: ids.encode("webhook_endpoint", row.id),
  url: row.url,
  description: row.description,
  event_types: row.event_types as WebhookEventType[],
  enabled: row.enabled,
  ordered: row.ordered,
  disabled_reason: row.disabled_reason,
  disabled_at: row.disabled_at,
  // An overlap that has ended is no longer news: the previous secret no longer signs.
  previous_secret_expires_at:
    row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now
      ? row.previous_secret_expires_at
      : null,
  created_at: row.created_at,
  updated_at: row.updated_at,
});
