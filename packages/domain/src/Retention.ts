/**
 * How long the service keeps records it no longer needs in order to work
 * (docs/decisions/0021, 0022). The worker's hourly purge applies these unless
 * a deployment sets `WEBHOOK_EVENT_RETENTION_DAYS`,
 * `SNAPSHOT_BODY_RETENTION_DAYS` or `STAGED_SNAPSHOT_EXPIRY_DAYS`; the OpenAPI
 * document states them.
 */

/** Days a webhook event, its deliveries and their attempts are kept after it was recorded (longer while a delivery is pending). */
export const webhookEventDays = 30;

/** Days a settled snapshot's stored request bodies are kept after it settled; its digest, counts and outcome stay. */
export const snapshotBodyDays = 90;

/**
 * Days a staged snapshot may stay `uploading` after its start or its last
 * chunk; then it expires: `failed` with failure code `snapshot_expired`, and
 * its bodies follow `snapshotBodyDays` from then (docs/decisions/0022).
 */
export const stagedUploadDays = 7;
