/**
 * How long the service keeps records it no longer needs in order to work
 * (docs/decisions/0021). The worker's hourly purge applies these unless a
 * deployment sets `WEBHOOK_EVENT_RETENTION_DAYS` or
 * `SNAPSHOT_BODY_RETENTION_DAYS`; the OpenAPI document states them.
 */

/** Days a webhook event, its deliveries and their attempts are kept after it was recorded (longer while a delivery is pending). */
export const webhookEventDays = 30;

/** Days a settled snapshot's stored request bodies are kept after it settled; its digest, counts and outcome stay. */
export const snapshotBodyDays = 90;
