/**
 * `apply_snapshot`: applies an accepted snapshot (payload `{ snapshot_id }`,
 * queued by the api in the campaign's queue). Logs one `snapshot processed`
 * line per run with its outcome, duration and counts, and records the same
 * run in the metrics (`snapshot_apply_*`).
 * A failure a retry may cure is thrown for graphile-worker to retry; on the
 * job's last attempt, or when a retry cannot help, the snapshot is marked
 * `failed` with `processing_error` and the job completes
 * (docs/decisions/0354), its `snapshot.failed` event recorded in the same
 * transaction.
 */
import {
  APPLY_SNAPSHOT_TASK,
  type Database,
  type EventIds,
  findEarlierOpenSnapshot,
  markSnapshotApplyFailed,
  recordSnapshotEvent,
  snapshotFailure,
} from "@dc/db";
import { Schema } from "effect";
import type { Task } from "graphile-worker";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import { defineTask } from "../define-task.ts";
import type { WorkerMetrics } from "../observability/metrics.ts";
import { applySnapshot } from "../snapshots/apply-snapshot.ts";
import { isPermanent, WaitingForEarlierSnapshot } from "../snapshots/errors.ts";

/** The task's identifier in graphile-worker (the api enqueues it). */
export const APPLY_SNAPSHOT = APPLY_SNAPSHOT_TASK;

/** The job payload the api writes. */
export const ApplySnapshotPayload = Schema.Struct({
  snapshot_id: Schema.Number.pipe(Schema.int(), Schema.positive()),
});

/** Dependencies of the `apply_snapshot` task. */
export interface ApplySnapshotDependencies {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: WorkerMetrics;
  /** Encodes the ids of the webhook events' payloads. */
  readonly ids: EventIds;
}

const processingError = (error: unknown) =>
  snapshotFailure(
    "processing_error",
    error instanceof WaitingForEarlierSnapshot
      ? "The snapshot could not be processed: an earlier snapshot of the campaign was still being applied. No debt was changed."
      : "The snapshot could not be processed. No debt was changed.",
  );

/** The `apply_snapshot` task. */
export const applySnapshotTask = ({ db, clock, logger, metrics, ids }: ApplySnapshotDependencies): Task =>
  defineTask(ApplySnapshotPayload, logger, async ({ snapshot_id: snapshotId }, helpers) => {
    const started = performance.now();
    const { job } = helpers;
    const log = logger.child({ task: APPLY_SNAPSHOT, jobId: job.id, snapshotId, attempt: job.attempts });
    const durationMs = (): number => Math.round(performance.now() - started);
    const seconds = (): number => (performance.now() - started) / 1000;
    try {
      const earlier = await findEarlierOpenSnapshot(db, snapshotId);
      if (earlier !== undefined) {
        throw new WaitingForEarlierSnapshot({
          earlierSnapshotId: earlier,
          message: `snapshot ${earlier} of the same campaign was accepted earlier and is not applied yet`,
        });
      }
      const result = await applySnapshot({ db, clock, ids }, snapshotId);
      const level = result.outcome === "failed" ? "warn" : "info";
      log[level]({ ...result, durationMs: durationMs() }, "snapshot processed");
      metrics.observeSnapshotApply({
        outcome: result.outcome,
        seconds: seconds(),
        ...(result.outcome === "failed" ? { failureCode: result.code } : {}),
        ...(result.outcome === "completed" ? { rows: result.counts.rows } : {}),
      });
    } catch (error) {
      if (!isPermanent(error) && job.attempts < job.max_attempts) {
        log.warn(
          { err: error, durationMs: durationMs(), maxAttempts: job.max_attempts },
          "snapshot not applied: will retry",
        );
        metrics.observeSnapshotApply({ outcome: "retry", seconds: seconds() });
        throw error;
      }
      const now = clock.now();
      const marked = await db.transaction().execute(async (trx) => {
        const companyId = await markSnapshotApplyFailed(trx, snapshotId, processingError(error), now);
        if (companyId === undefined) return false;
        await recordSnapshotEvent(trx, { companyId, snapshotId, type: "snapshot.failed", occurredAt: now });
        return true;
      });
      log.error(
        { err: error, outcome: "failed", code: "processing_error", marked, durationMs: durationMs() },
        "snapshot processed",
      );
      metrics.observeSnapshotApply({ outcome: "failed", seconds: seconds(), failureCode: "processing_error" });
    }
  });
