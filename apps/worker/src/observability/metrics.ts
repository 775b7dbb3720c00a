/**
 * Prometheus metrics of a worker process: how snapshot applications end and
 * how long they take, webhook delivery attempts by outcome, what the hourly
 * purge removed, graphile-worker job outcomes by task, the job queue read
 * from PostgreSQL at scrape time, and Node.js process metrics. Served by
 * server.ts (docs/operations.md).
 */
import { type Db, jobQueueDepth, jobQueueDepthGauge } from "@dc/db";
import type { WorkerEventMap, WorkerEvents } from "graphile-worker";
import type { Logger } from "pino";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { DeliveryOutcome } from "../webhooks/deliver.ts";

/**
 * How one run of `apply_snapshot` ended: `completed` and `failed` are final
 * (`failed` covers `invalid_snapshot_row` and `processing_error`),
 * `skipped` found the snapshot already final, `not_found` found no snapshot,
 * `retry` threw for graphile-worker to run the job again.
 */
export type SnapshotApplyOutcome = "completed" | "failed" | "skipped" | "not_found" | "retry";

/** One run of `apply_snapshot`, as the task saw it. */
export interface SnapshotApplyRun {
  readonly outcome: SnapshotApplyOutcome;
  readonly seconds: number;
  /** For `failed`: the snapshot's failure code. */
  readonly failureCode?: "invalid_snapshot_row" | "processing_error";
  /** For `completed`: the snapshot's rows. */
  readonly rows?: number;
}

/** What one run of `purge_expired` did (docs/decisions/0021, 0022). */
export interface PurgeRun {
  /** Rows deleted, expired or cleared, by kind (`webhook_events`, `staged_snapshots_expired`, ...). */
  readonly removed: Readonly<Record<string, number>>;
  /** Bytes of snapshot bodies cleared. */
  readonly snapshotBodyBytes: number;
  /** The run's time budget ended it with rows possibly left for the next run. */
  readonly unfinished: boolean;
}

export interface WorkerMetrics {
  readonly registry: Registry;
  /** Records one run of `apply_snapshot`. */
  readonly observeSnapshotApply: (run: SnapshotApplyRun) => void;
  /** Records one webhook delivery attempt's outcome. */
  readonly countWebhookDelivery: (outcome: DeliveryOutcome) => void;
  /** Records what one run of `purge_expired` removed. */
  readonly countPurge: (run: PurgeRun) => void;
  /**
   * Counts the jobs of the runner that emits `events` and reads the queue
   * depth through `db` at scrape time, until the returned function is called
   * (before `db` is destroyed: a scrape after it reports no queue depth).
   */
  readonly attach: (events: WorkerEvents, db: Db) => () => void;
}

/** From a few milliseconds (a re-run that skips) to minutes (the largest snapshots). */
const SNAPSHOT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/**
 * A registry of its own with the worker's metrics. `logger` reports a queue
 * depth that cannot be read (the scrape still answers, without that gauge).
 *
 * @example
 * const metrics = createWorkerMetrics(logger);
 * const worker = await startWorker({ ...options, metrics });
 * const text = await metrics.registry.metrics();
 */
export const createWorkerMetrics = (logger: Logger): WorkerMetrics => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const snapshotDuration = new Histogram({
    name: "snapshot_apply_duration_seconds",
    help: "Duration of apply_snapshot runs by outcome",
    labelNames: ["outcome"] as const,
    buckets: SNAPSHOT_BUCKETS,
    registers: [registry],
  });
  const snapshotRuns = new Counter({
    name: "snapshot_apply_total",
    help: "apply_snapshot runs by outcome (completed, failed, skipped, not_found, retry)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const snapshotFailures = new Counter({
    name: "snapshot_apply_failures_total",
    help: "Snapshots failed by the worker, by failure code",
    labelNames: ["code"] as const,
    registers: [registry],
  });
  const snapshotRows = new Counter({
    name: "snapshot_rows_applied_total",
    help: "Rows of completed snapshots",
    registers: [registry],
  });
  const webhookDeliveries = new Counter({
    name: "webhook_deliveries_total",
    help: "Webhook delivery job runs by outcome",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const purged = new Counter({
    name: "purge_removed_total",
    help: "Rows the hourly purge deleted, expired or cleared, by kind",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const purgedBodyBytes = new Counter({
    name: "purge_snapshot_body_bytes_total",
    help: "Bytes of stored snapshot bodies the hourly purge cleared",
    registers: [registry],
  });
  const purgeUnfinished = new Counter({
    name: "purge_unfinished_total",
    help: "Purge runs that their time budget ended with rows possibly left for the next run",
    registers: [registry],
  });
  const jobs = new Counter({
    name: "worker_jobs_total",
    help: "graphile-worker job runs by task and outcome (success, retry, failed)",
    labelNames: ["task", "outcome"] as const,
    registers: [registry],
  });
  let queueDb: Db | undefined;
  new Gauge({
    ...jobQueueDepthGauge,
    registers: [registry],
    async collect() {
      this.reset();
      if (queueDb === undefined) return;
      try {
        // The api's gauge of the same definition reads the same rows.
        for (const { task, depth } of await jobQueueDepth(queueDb)) this.set({ task }, depth);
      } catch (error) {
        logger.warn({ err: error }, "could not read the job queue depth for metrics");
      }
    },
  });

  return {
    registry,
    observeSnapshotApply: ({ outcome, seconds, failureCode, rows }) => {
      snapshotRuns.inc({ outcome });
      snapshotDuration.observe({ outcome }, seconds);
      if (failureCode !== undefined) snapshotFailures.inc({ code: failureCode });
      if (rows !== undefined) snapshotRows.inc(rows);
    },
    countWebhookDelivery: (outcome) => webhookDeliveries.inc({ outcome }),
    countPurge: ({ removed, snapshotBodyBytes, unfinished }) => {
      // Every kind is set, zero included, so a dashboard sees the series from the first run.
      for (const [kind, count] of Object.entries(removed)) purged.inc({ kind }, count);
      purgedBodyBytes.inc(snapshotBodyBytes);
      if (unfinished) purgeUnfinished.inc();
    },
    attach: (events, db) => {
      const onSuccess = ({ job }: WorkerEventMap["job:success"]) =>
        jobs.inc({ task: job.task_identifier, outcome: "success" });
      // graphile-worker emits `job:error` for every throw and `job:failed` after it on the last attempt.
      const onError = ({ job }: WorkerEventMap["job:error"]) => {
        if (job.attempts < job.max_attempts) jobs.inc({ task: job.task_identifier, outcome: "retry" });
      };
      const onFailed = ({ job }: WorkerEventMap["job:failed"]) =>
        jobs.inc({ task: job.task_identifier, outcome: "failed" });
      events.on("job:success", onSuccess);
      events.on("job:error", onError);
      events.on("job:failed", onFailed);
      queueDb = db;
      return () => {
        events.off("job:success", onSuccess);
        events.off("job:error", onError);
        events.off("job:failed", onFailed);
        if (queueDb === db) queueDb = undefined;
      };
    },
  };
};
