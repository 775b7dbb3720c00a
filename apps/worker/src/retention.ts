/**
 * The retention purge (docs/decisions/0021, 0022), run by the hourly
 * `purge_expired` job after the expired credentials: webhook events older
 * than `WEBHOOK_EVENT_RETENTION_DAYS` with their deliveries and attempts,
 * staged snapshots left `uploading` longer than `STAGED_SNAPSHOT_EXPIRY_DAYS`
 * (they become `failed`), and the stored bodies of snapshots settled more
 * than `SNAPSHOT_BODY_RETENTION_DAYS` ago. Batches repeat until one comes
 * back short or the run's time budget is spent; the next hour goes on from
 * there.
 */
import { type Db, expireStagedSnapshotsBatch, purgeSnapshotBodiesBatch, purgeWebhookEventsBatch } from "@dc/db";
import { Retention } from "@dc/domain";

/** Days each kind of row is kept; 0 keeps it for good. */
export interface RetentionSettings {
  readonly webhookEventDays: number;
  readonly snapshotBodyDays: number;
  /** Days a staged snapshot may stay `uploading` after its last activity; 0 lets it wait for good. */
  readonly stagedUploadDays: number;
}

/** Defaults of `WEBHOOK_EVENT_RETENTION_DAYS`, `SNAPSHOT_BODY_RETENTION_DAYS` and `STAGED_SNAPSHOT_EXPIRY_DAYS`. */
export const DEFAULT_RETENTION: RetentionSettings = {
  webhookEventDays: Retention.webhookEventDays,
  snapshotBodyDays: Retention.snapshotBodyDays,
  stagedUploadDays: Retention.stagedUploadDays,
};


/** What one run removed. */
export interface RetentionCounts {
  readonly webhook_events: number;
  readonly webhook_deliveries: number;
  readonly webhook_delivery_attempts: number;
  /** Staged snapshots that expired (now `failed`), and the `snapshot.failed` events recorded for them. */
  readonly staged_snapshots_expired: number;
  readonly staged_snapshot_events: number;
  readonly snapshot_chunk_bodies: number;
  readonly snapshot_body_bytes: number;
  /** True when the time budget ended the run with rows possibly left for the next one. */
  readonly unfinished: boolean;
}

export interface RetentionRunOptions {
  /** Events per webhook batch (default 2,000). */
  readonly webhookBatch?: number;
  /** Staged snapshots per expiry batch (default 500). */
  readonly stagedBatch?: number;
  /** Chunks per snapshot batch (default 50: up to 500 MiB of bodies). */
  readonly snapshotBatch?: number;
  /** No batch starts after this many milliseconds (default 10 minutes). */
  readonly budgetMs?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

const daysBefore = (now: Date, days: number): Date => new Date(now.getTime() - days * DAY_MS);

/**
 * Removes what `settings` no longer keeps as of `now`. Safe to run
 * concurrently with itself, the api and deliveries (each batch skips locked
 * rows). Database errors propagate.
 */
export const purgeRetained = async (
  db: Db,
  now: Date,
  settings: RetentionSettings,
  options: RetentionRunOptions = {},
): Promise<RetentionCounts> => {
  const webhookBatch = options.webhookBatch ?? 2_000;
  const snapshotBatch = options.snapshotBatch ?? 50;
  const stagedBatch = options.stagedBatch ?? 500;
  const deadline = performance.now() + (options.budgetMs ?? 10 * 60 * 1000);
  const counts = {
    webhook_events: 0,
    webhook_deliveries: 0,
    webhook_delivery_attempts: 0,
    staged_snapshots_expired: 0,
    staged_snapshot_events: 0,
    snapshot_chunk_bodies: 0,
    snapshot_body_bytes: 0,
    unfinished: false,
  };
  if (settings.webhookEventDays > 0) {
    const cutoff = daysBefore(now, settings.webhookEventDays);
    for (;;) {
      if (performance.now() >= deadline) return { ...counts, unfinished: true };
      const batch = await purgeWebhookEventsBatch(db, { cutoff, limit: webhookBatch });
      counts.webhook_events += batch.events;
      counts.webhook_deliveries += batch.deliveries;
      counts.webhook_delivery_attempts += batch.attempts;
      // A full batch that deleted nothing examined only events other transactions hold: a later run takes them.
      if (batch.examined < webhookBatch || batch.events === 0) break;
    }
  }
  // Before the bodies: an expired upload is settled from now on, and its bodies follow their retention from here.
  if (settings.stagedUploadDays > 0) {
    for (;;) {
      if (performance.now() >= deadline) return { ...counts, unfinished: true };
      const batch = await expireStagedSnapshotsBatch(db, { idleDays: settings.stagedUploadDays, limit: stagedBatch, now });
      counts.staged_snapshots_expired += batch.snapshots;
      counts.staged_snapshot_events += batch.events;
      if (batch.snapshots < stagedBatch) break;
    }
  }
  if (settings.snapshotBodyDays > 0) {
    const cutoff = daysBefore(now, settings.snapshotBodyDays);
    for (;;) {
      if (performance.now() >= deadline) return { ...counts, unfinished: true };
      const batch = await purgeSnapshotBodiesBatch(db, { cutoff, limit: snapshotBatch, now });
      counts.snapshot_chunk_bodies += batch.chunks;
      counts.snapshot_body_bytes += batch.bytes;
      if (batch.chunks < snapshotBatch) break;
    }
  }
  return counts;
};
