/**
 * `apply_snapshot`: applies an accepted snapshot (payload
 * `{ snapshot_id, company_id }`, queued by the api in the campaign's queue,
 * docs/decisions/0023). Logs one `snapshot processed` line per run with its
 * outcome, duration and counts, and records the same run in the metrics
 * (`snapshot_apply_*`).
 * A failure a retry may cure is thrown for graphile-worker to retry; on the
 * job's last attempt, or when a retry cannot help, the snapshot is marked
 * `failed` with `processing_error` and the job completes
 * (docs/decisions/0354), its `snapshot.failed` event recorded in the same
 * transaction. When that recording fails too, the job is left spent and
 * `failSpentSnapshots` (run by the worker's periodic sweep) records it.
 */
import {
  APPLY_SNAPSHOT_TASK,
  completeSpentJob,
  type Db,
  type EventIds,
  findEarlierOpenSnapshot,
  findSpentSnapshotJobs,
  markSnapshotApplyFailed,
  recordSnapshotEvent,
  type SnapshotRowKey,
  snapshotFailure,
  type SpentSnapshotJob,
} from "@dc/db";
import type { DebtorLinkSigner } from "@dc/crypto";
import { Schema } from "effect";
import type { Task } from "graphile-worker";
import type { Logger } from "pino";
import type { Clock } from "@dc/runtime";
import { defineTask } from "../define-task.ts";
import type { WorkerMetrics } from "../observability/metrics.ts";
import { applySnapshot } from "../snapshots/apply-snapshot.ts";
import { isPermanent, WaitingForEarlierSnapshot } from "../snapshots/errors.ts";
import { settleSpentJobs } from "../spent-jobs.ts";

/** The task's identifier in graphile-worker (the api enqueues it). */
export const APPLY_SNAPSHOT = APPLY_SNAPSHOT_TASK;

const positiveId = Schema.Number.pipe(Schema.int(), Schema.positive());

/** The job payload the api writes (`enqueueApplySnapshot`). */
const ApplySnapshotPayload = Schema.Struct({
  snapshot_id: positiveId,
  company_id: positiveId,
});

/** Dependencies of the `apply_snapshot` task. */
export interface ApplySnapshotDependencies {
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: WorkerMetrics;
  /** Encodes the ids of the webhook events' payloads. */
  readonly ids: EventIds;
  /** Signs the debtor page links of the debt.* payloads. */
  readonly links: DebtorLinkSigner;
}

const processingError = (error: unknown) =>
  snapshotFailure(
    "processing_error",
    error instanceof WaitingForEarlierSnapshot
      ? "The snapshot could not be processed: an earlier snapshot of the campaign was still being applied. No debt was changed."
      : "The snapshot could not be processed. No debt was changed.",
  );

/**
 * Marks the snapshot `failed` with `processing_error` and records its
 * `snapshot.failed` event, in one transaction, unless it already ended.
 * With `spentJobId`, only if that job is still spent, which it then deletes
 * in the same transaction. Returns whether the snapshot was marked.
 */
const recordProcessingError = (
  db: Db,
  key: SnapshotRowKey,
  error: unknown,
  now: Date,
  spentJobId?: string,
): Promise<boolean> =>
  db.transaction().execute(async (trx) => {
    if (spentJobId !== undefined && !(await completeSpentJob(trx, spentJobId))) return false;
    if (!(await markSnapshotApplyFailed(trx, key, processingError(error), now))) return false;
    await recordSnapshotEvent(trx, {
      companyId: key.companyId,
      snapshotId: key.id,
      type: "snapshot.failed",
      occurredAt: now,
    });
    return true;
  });

/** The `apply_snapshot` task. */
export const applySnapshotTask = ({ db, clock, logger, metrics, ids, links }: ApplySnapshotDependencies): Task =>
  defineTask(ApplySnapshotPayload, logger, async ({ snapshot_id: snapshotId, company_id: companyId }, helpers) => {
    const started = performance.now();
    const { job } = helpers;
    const log = logger.child({ task: APPLY_SNAPSHOT, jobId: job.id, snapshotId, attempt: job.attempts });
    const durationMs = (): number => Math.round(performance.now() - started);
    const seconds = (): number => (performance.now() - started) / 1000;
    const key: SnapshotRowKey = { companyId, id: snapshotId };
    try {
      const earlier = await findEarlierOpenSnapshot(db, key);
      if (earlier !== undefined) {
        throw new WaitingForEarlierSnapshot({
          earlierSnapshotId: earlier,
          message: `snapshot ${earlier} of the same campaign was accepted earlier and is not applied yet`,
        });
      }
      const result = await applySnapshot({ db, clock, ids, links }, key);
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
      let marked: boolean;
      try {
        marked = await recordProcessingError(db, key, error, clock.now());
      } catch (recordError) {
        // Thrown, the job is left spent (graphile-worker will not run it again)
        // and the snapshot open: the worker's periodic sweep records the failure.
        log.error(
          { err: recordError, cause: error, durationMs: durationMs() },
          "snapshot failure not recorded: left to the spent-job sweep",
        );
        throw recordError;
      }
      log.error(
        { err: error, outcome: "failed", code: "processing_error", marked, durationMs: durationMs() },
        "snapshot processed",
      );
      metrics.observeSnapshotApply({ outcome: "failed", seconds: seconds(), failureCode: "processing_error" });
    }
  });

/**
 * Records the `processing_error` of every open snapshot whose apply job is
 * spent (`findSpentSnapshotJobs`): its last attempt could not, because
 * recording the failure failed too, or because the worker died during it.
 * Each is marked `failed`, its `snapshot.failed` event recorded and its job
 * deleted in one transaction. Errors are logged, never thrown: the next
 * sweep tries again. Returns the snapshots marked.
 */
export const failSpentSnapshots = async ({
  db,
  clock,
  logger,
}: Pick<ApplySnapshotDependencies, "db" | "clock" | "logger">): Promise<Array<number>> => {
  const marked = await settleSpentJobs<SpentSnapshotJob>({
    logger,
    task: APPLY_SNAPSHOT,
    find: () => findSpentSnapshotJobs(db),
    settle: ({ companyId, snapshotId, jobId }) =>
      recordProcessingError(db, { companyId, id: snapshotId }, undefined, clock.now(), jobId),
    idOf: ({ snapshotId }) => ({ field: "snapshotId", id: snapshotId }),
    couldNotFind: "could not look for snapshots with spent jobs",
    couldNotSettle: "could not record the failure of a snapshot with a spent job",
  });
  if (marked.length > 0) {
    logger.warn(
      { task: APPLY_SNAPSHOT, snapshotIds: marked, outcome: "failed", code: "processing_error" },
      "snapshots failed: their jobs were spent without recording it",
    );
  }
  return marked;
};
