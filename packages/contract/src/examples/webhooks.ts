/** Examples of the webhook endpoint operations (operations.ts gathers them). */
import { ids, list, ok, page, webhookEndpoint, webhookSecret } from "./resources.ts";

const webhookPath = { id: ids.webhookEndpoint };

export const webhooksExamples = {
  listWebhookEndpoints: { query: page, response: list([webhookEndpoint]) },
  createWebhookEndpoint: {
    request: {
      url: webhookEndpoint.url,
      description: webhookEndpoint.description,
      event_types: webhookEndpoint.event_types,
      enabled: true,
      ordered: false,
    },
    response: ok("Webhook endpoint created successfully", { ...webhookEndpoint, secret: webhookSecret }),
  },
  getWebhookEndpoint: { path: webhookPath, response: ok("Webhook endpoint retrieved successfully", webhookEndpoint) },
  updateWebhookEndpoint: {
    path: webhookPath,
    request: { event_types: ["payment.recorded", "debt.settled"], ordered: true },
    response: ok("Webhook endpoint updated successfully", {
      ...webhookEndpoint,
      event_types: ["payment.recorded", "debt.settled"],
      ordered: true,
      updated_at: "2026-11-24T15:02:10+00:00",
    }),
  },
  deleteWebhookEndpoint: {
    path: webhookPath,
    response: { error: false, message: "Webhook endpoint deleted successfully" },
  },
  rotateWebhookSecret: {
    path: webhookPath,
    response: ok("Webhook endpoint secret rotated successfully", {
      ...webhookEndpoint,
      previous_secret_expires_at: "2026-11-25T15:02:10+00:00",
      updated_at: "2026-11-24T15:02:10+00:00",
      secret: "whsec_c2VjcmV0LXJvdGF0ZWQtMjAyNi0xMS0yNC1hY21lLXN1cA==",
    }),
  },
  listWebhookDeliveries: {
    path: webhookPath,
    query: page,
    response: list([
      {
        event_id: ids.event,
        event_type: "payment.recorded",
        event_timestamp: "2026-11-23T06:00:12+00:00",
        status: "succeeded",
        attempt_count: 2,
        next_attempt_at: null,
        created_at: "2026-11-23T06:00:12+00:00",
        updated_at: "2026-11-23T06:00:48+00:00",
        completed_at: "2026-11-23T06:00:48+00:00",
        attempts: [
          {
            attempted_at: "2026-11-23T06:00:13+00:00",
            status_code: 503,
            duration_ms: 212,
            error: null,
            response_body_excerpt: "Service Unavailable",
          },
          {
            attempted_at: "2026-11-23T06:00:48+00:00",
            status_code: 200,
            duration_ms: 87,
            error: null,
            response_body_excerpt: "ok",
          },
        ],
      },
    ]),
  },
  replayFailedWebhookDeliveries: {
    path: webhookPath,
    response: ok("Webhook deliveries queued", { deliveries_queued: 3 }),
  },
  replayWebhookEvent: {
    path: { eventId: ids.event },
    response: ok("Webhook deliveries queued", { deliveries_queued: 1 }),
  },
} as const;
