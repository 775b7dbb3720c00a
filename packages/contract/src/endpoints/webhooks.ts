/**
 * Webhook endpoint management, delivery history and replays (contract part 6,
 * designed in docs/decisions/0450-0456). Reads need `debts:read`; changes,
 * secret rotation and replays need `debts:write`, since the events concern
 * the company's receivables. The signing secret is returned only by create
 * and rotate-secret.
 */
import { Retention } from "@dc/domain";
import { Schema } from "effect";
import { API_PREFIX, DEFAULT_JSON_BODY_BYTES, endpoint, type ErrorCase } from "../endpoint.ts";
import { DataEnvelope, ListEnvelope, MessageEnvelope } from "../envelopes.ts";
import { errorCases, jsonBodyErrors, protectedErrors } from "../errors.ts";
import { IsoOffsetDateTime } from "../formats.ts";
import { EncryptedId } from "../ids.ts";
import { PaginationQuery, paginationFields, QueryInt } from "../pagination.ts";
import type { Tag } from "../tags.ts";
import { WebhookEventType } from "../webhooks.ts";
import { pathParams, queryParams } from "./request-parts.ts";

export const MAX_WEBHOOK_ENDPOINTS = 20;
/** Default (and maximum) time the previous secret keeps signing after a rotation. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 60 * 60;
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 24 * 60 * 60;

/** What the history and the replays can reach (docs/decisions/0021). */
const RETENTION_NOTE =
  ` Events are kept ${Retention.webhookEventDays} days after they are recorded (longer while a delivery of theirs is ` +
  "pending); then the event, its deliveries and their attempts are deleted, and the event can no longer be replayed.";

export const webhookMessages = {
  created: "Webhook endpoint created successfully",
  retrieved: "Webhook endpoint retrieved successfully",
  updated: "Webhook endpoint updated successfully",
  deleted: "Webhook endpoint deleted successfully",
  secretRotated: "Webhook endpoint secret rotated successfully",
  replayed: "Webhook deliveries queued",
  endpointNotFound: "Webhook endpoint not found",
  eventNotFound: "Webhook event not found",
  endpointDisabled: "Webhook endpoint is disabled: enable it before replaying",
  limitReached: `A company may have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints`,
} as const;

export const webhookErrorCodes = {
  endpointDisabled: "webhook_endpoint_disabled",
  limitReached: "webhook_endpoint_limit_reached",
} as const;

const Timestamp = IsoOffsetDateTime;

export const WebhookEndpoint = Schema.Struct({
  id: EncryptedId("webhook endpoint"),
  url: Schema.String,
  description: Schema.NullOr(Schema.String),
  event_types: Schema.Array(WebhookEventType).annotations({ description: "Subscribed types; empty means every type" }),
  enabled: Schema.Boolean,
  ordered: Schema.Boolean.annotations({
    description: "Deliveries go one at a time in event-time order; a failing event holds back the later ones until it succeeds or is given up",
  }),
  disabled_reason: Schema.NullOr(Schema.Literal("manual", "gone")).annotations({
    description: "`manual`: disabled through the API; `gone`: the endpoint answered 410 Gone. Null while enabled.",
  }),
  disabled_at: Schema.NullOr(Timestamp),
  previous_secret_expires_at: Schema.NullOr(Timestamp).annotations({
    description: "After a rotation: until when the previous secret still signs (both signatures are sent)",
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
}).annotations({ identifier: "WebhookEndpoint" });
export type WebhookEndpoint = typeof WebhookEndpoint.Type;

export const WebhookEndpointWithSecret = Schema.Struct({
  ...WebhookEndpoint.fields,
  secret: Schema.String.annotations({
    description: "The signing secret, `whsec_` + base64 of 32 random bytes. Shown only in this response: store it now.",
    examples: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwAbCdEfGhIjk="],
  }),
}).annotations({ identifier: "WebhookEndpointWithSecret" });

const WebhookUrl = Schema.String.pipe(
  Schema.maxLength(2048, { message: () => "must be at most 2048 characters" }),
  Schema.filter((value) => {
    try {
      const url = new URL(value);
      return url.protocol === "https:" || url.protocol === "http:";
    } catch {
      return false;
    }
  }, { message: () => "must be an absolute http or https URL" }),
).annotations({
  description: "Where events are POSTed. Production requires https and a host resolving only to public addresses.",
  jsonSchema: { type: "string", format: "uri", maxLength: 2048, examples: ["https://hooks.example.com/debt-collection"] },
});

const Description = Schema.String.pipe(Schema.maxLength(500, { message: () => "must be at most 500 characters" }));

const EventTypes = Schema.Array(WebhookEventType).pipe(
  Schema.filter((types) => new Set(types).size === types.length || "must not repeat a type"),
).annotations({ description: "Event types to receive; empty or absent means every type" });

export const CreateWebhookEndpointBody = Schema.Struct({
  url: WebhookUrl,
  description: Schema.optional(Schema.NullOr(Description)),
  event_types: Schema.optional(EventTypes),
  enabled: Schema.optional(Schema.Boolean),
  ordered: Schema.optional(Schema.Boolean),
}).annotations({ identifier: "CreateWebhookEndpointBody", description: "Only `url` is required. Unknown keys are rejected." });
export type CreateWebhookEndpointBody = typeof CreateWebhookEndpointBody.Type;

export const UpdateWebhookEndpointBody = Schema.Struct({
  url: Schema.optional(WebhookUrl),
  description: Schema.optional(Schema.NullOr(Description)),
  event_types: Schema.optional(EventTypes),
  enabled: Schema.optional(Schema.Boolean),
  ordered: Schema.optional(Schema.Boolean),
}).annotations({
  identifier: "UpdateWebhookEndpointBody",
  description: "Any non-empty subset; absent fields are unchanged. Disabling settles pending deliveries as `disabled`.",
});
export type UpdateWebhookEndpointBody = typeof UpdateWebhookEndpointBody.Type;

export const WebhookDeliveryAttempt = Schema.Struct({
  attempted_at: Timestamp,
  status_code: Schema.NullOr(Schema.Int).annotations({ description: "HTTP status; null when no response came (timeout, refused...)" }),
  duration_ms: Schema.Int,
  error: Schema.NullOr(Schema.String),
  response_body_excerpt: Schema.NullOr(Schema.String).annotations({ description: "The first 1 KiB of the response body" }),
}).annotations({ identifier: "WebhookDeliveryAttempt" });

export const deliveryStatuses = ["pending", "succeeded", "failed", "disabled"] as const;
const DeliveryStatus = Schema.Literal(...deliveryStatuses).annotations({
  description:
    "`pending`: to be (re)tried at `next_attempt_at`; `succeeded`: a 2xx came; `failed`: retries exhausted or 410 Gone; " +
    "`disabled`: dropped because the endpoint was disabled",
  message: () => ({ message: `must be one of: ${deliveryStatuses.join(", ")}`, override: true }),
});

export const MAX_LISTED_ATTEMPTS = 25;

export const WebhookDelivery = Schema.Struct({
  event_id: Schema.String.annotations({ description: "The event's id: the `webhook-id` header of every attempt" }),
  event_type: WebhookEventType,
  event_timestamp: Schema.String.annotations({ jsonSchema: { type: "string", format: "date-time" } }),
  status: DeliveryStatus,
  attempt_count: Schema.Int.annotations({ description: "Attempts made, replays included" }),
  next_attempt_at: Schema.NullOr(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
  completed_at: Schema.NullOr(Timestamp),
  attempts: Schema.Array(WebhookDeliveryAttempt).annotations({ description: `The latest ${MAX_LISTED_ATTEMPTS} attempts, newest first` }),
}).annotations({ identifier: "WebhookDelivery" });

export const WebhookReplay = Schema.Struct({
  deliveries_queued: Schema.Int.annotations({ description: "Deliveries put back to pending (each gets new attempts with the same webhook-id)" }),
}).annotations({ identifier: "WebhookReplay" });

export const WebhookEndpointParams = pathParams(
  Schema.Struct({ id: Schema.String.annotations({ description: "Encrypted webhook endpoint id" }) }),
);
export const WebhookEventParams = pathParams(
  Schema.Struct({ eventId: Schema.String.annotations({ description: "Event id (`evt_...`, the `webhook-id` header)" }) }),
);

const notFound = errorCases.notFound(webhookMessages.endpointNotFound);
const bodyErrors = jsonBodyErrors();
const disabled: ErrorCase = {
  status: 409,
  message: webhookMessages.endpointDisabled,
  description: "The endpoint is disabled",
  envelope: "api",
  errorCode: webhookErrorCodes.endpointDisabled,
};
const tags: ReadonlyArray<Tag> = ["Webhooks"];
const base = `${API_PREFIX}/webhooks`;
const EndpointResponse = DataEnvelope(WebhookEndpoint).annotations({ identifier: "WebhookEndpointResponse" });
const SecretResponse = DataEnvelope(WebhookEndpointWithSecret).annotations({ identifier: "WebhookEndpointSecretResponse" });
const ReplayResponse = DataEnvelope(WebhookReplay).annotations({ identifier: "WebhookReplayResponse" });

export const listWebhookEndpoints = endpoint({
  operationId: "listWebhookEndpoints",
  method: "get",
  path: `${base}/endpoints`,
  scope: "debts:read",
  tags,
  summary: "List webhook endpoints",
  description: "The company's webhook endpoints, oldest first, paginated. Secrets are never listed.",
  query: PaginationQuery,
  success: { status: 200, description: "A page of endpoints", schema: ListEnvelope(WebhookEndpoint).annotations({ identifier: "WebhookEndpointListResponse" }) },
  errors: [...protectedErrors("debts:read"), errorCases.validation],
  rateLimit: "read",
});

export const createWebhookEndpoint = endpoint({
  operationId: "createWebhookEndpoint",
  method: "post",
  path: `${base}/endpoints`,
  scope: "debts:write",
  tags,
  summary: "Create a webhook endpoint",
  description:
    `Registers a URL to receive events (at most ${MAX_WEBHOOK_ENDPOINTS} per company). The response carries the signing ` +
    "secret, shown only once. Events are signed per Standard Webhooks (see docs/webhooks.md).",
  body: { contentType: "application/json", schema: CreateWebhookEndpointBody, maxBytes: DEFAULT_JSON_BODY_BYTES },
  success: { status: 201, description: "The endpoint with its secret", schema: SecretResponse },
  errors: [
    ...protectedErrors("debts:write"),
    ...bodyErrors,
    { status: 409, message: webhookMessages.limitReached, description: "The company has the maximum number of endpoints", envelope: "api", errorCode: webhookErrorCodes.limitReached },
  ],
  rateLimit: "write",
});

export const getWebhookEndpoint = endpoint({
  operationId: "getWebhookEndpoint",
  method: "get",
  path: `${base}/endpoints/{id}`,
  scope: "debts:read",
  tags,
  summary: "Read a webhook endpoint",
  description: "One endpoint of the company (without its secret).",
  params: WebhookEndpointParams,
  success: { status: 200, description: "The endpoint", schema: EndpointResponse },
  errors: [...protectedErrors("debts:read"), notFound],
  rateLimit: "read",
});

export const updateWebhookEndpoint = endpoint({
  operationId: "updateWebhookEndpoint",
  method: "patch",
  path: `${base}/endpoints/{id}`,
  scope: "debts:write",
  tags,
  summary: "Update a webhook endpoint",
  description:
    "Changes any subset of url, description, event_types, enabled and ordered. Disabling settles the pending deliveries " +
    "as `disabled`; enabling clears `disabled_reason` (replay what was missed with replay-failed).",
  params: WebhookEndpointParams,
  body: { contentType: "application/json", schema: UpdateWebhookEndpointBody, maxBytes: DEFAULT_JSON_BODY_BYTES },
  success: { status: 200, description: "The updated endpoint", schema: EndpointResponse },
  errors: [...protectedErrors("debts:write"), ...bodyErrors, notFound],
  rateLimit: "write",
});

export const deleteWebhookEndpoint = endpoint({
  operationId: "deleteWebhookEndpoint",
  method: "delete",
  path: `${base}/endpoints/{id}`,
  scope: "debts:write",
  tags,
  summary: "Delete a webhook endpoint",
  description: "Permanent: the endpoint, its deliveries and their attempts are removed; pending deliveries stop.",
  params: WebhookEndpointParams,
  success: { status: 200, description: "Deleted", schema: MessageEnvelope },
  errors: [...protectedErrors("debts:write"), notFound],
  rateLimit: "write",
});

export const rotateWebhookSecret = endpoint({
  operationId: "rotateWebhookSecret",
  method: "post",
  path: `${base}/endpoints/{id}/rotate-secret`,
  scope: "debts:write",
  tags,
  summary: "Rotate an endpoint's signing secret",
  description:
    "Issues a new secret (shown once). During the overlap, every delivery carries two signatures in `webhook-signature`, " +
    "one per secret; after it, only the new one. `overlap_seconds=0` stops the previous secret at once (after a leak).",
  params: WebhookEndpointParams,
  query: queryParams(
    Schema.Struct({
      overlap_seconds: QueryInt({
        min: 0,
        max: MAX_SECRET_OVERLAP_SECONDS,
        default: DEFAULT_SECRET_OVERLAP_SECONDS,
        description: "How long the previous secret keeps signing, in seconds (default 86400, at most 604800)",
      }),
    }),
  ),
  success: { status: 200, description: "The endpoint with its new secret", schema: SecretResponse },
  errors: [...protectedErrors("debts:write"), errorCases.validation, notFound],
  rateLimit: "write",
});

export const listWebhookDeliveries = endpoint({
  operationId: "listWebhookDeliveries",
  method: "get",
  path: `${base}/endpoints/{id}/deliveries`,
  scope: "debts:read",
  tags,
  summary: "List an endpoint's deliveries",
  description: "The endpoint's deliveries, newest first, each with its event type, status and latest attempts." + RETENTION_NOTE,
  params: WebhookEndpointParams,
  query: queryParams(Schema.Struct({ ...paginationFields, status: Schema.optional(DeliveryStatus) })),
  success: { status: 200, description: "A page of deliveries", schema: ListEnvelope(WebhookDelivery).annotations({ identifier: "WebhookDeliveryListResponse" }) },
  errors: [...protectedErrors("debts:read"), errorCases.validation, notFound],
  rateLimit: "read",
});

export const replayFailedWebhookDeliveries = endpoint({
  operationId: "replayFailedWebhookDeliveries",
  method: "post",
  path: `${base}/endpoints/{id}/replay-failed`,
  scope: "debts:write",
  tags,
  summary: "Replay an endpoint's failed deliveries",
  description:
    "Puts every `failed` or `disabled` delivery of the endpoint back to pending with a fresh retry schedule. New attempts " +
    "carry the same `webhook-id` as before, so receivers can deduplicate." +
    RETENTION_NOTE,
  params: WebhookEndpointParams,
  success: { status: 202, description: "The deliveries queued", schema: ReplayResponse },
  errors: [...protectedErrors("debts:write"), notFound, disabled],
  rateLimit: "write",
});

export const replayWebhookEvent = endpoint({
  operationId: "replayWebhookEvent",
  method: "post",
  path: `${base}/events/{eventId}/replay`,
  scope: "debts:write",
  tags,
  summary: "Replay an event",
  description:
    "Sends the event again to each enabled endpoint that had a delivery of it, or, with `endpoint_id`, to that endpoint " +
    "only (even one created after the event). A delivery still pending is left as it is." +
    RETENTION_NOTE,
  params: WebhookEventParams,
  query: queryParams(
    Schema.Struct({
      endpoint_id: Schema.optional(Schema.String.annotations({ description: "Encrypted id of one endpoint to replay to" })),
    }),
  ),
  success: { status: 202, description: "The deliveries queued", schema: ReplayResponse },
  errors: [
    ...protectedErrors("debts:write"),
    // The query is decoded like any other: `endpoint_id` given twice, or with a NUL, is a 400 naming it.
    errorCases.validation,
    errorCases.notFound(webhookMessages.eventNotFound),
    { ...notFound, description: "`endpoint_id` is unknown or of another company" },
    disabled,
  ],
  rateLimit: "write",
});
