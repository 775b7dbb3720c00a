/**
 * The worker as a library: start it in-process (optionally with metrics to
 * serve), or run the purge or a snapshot's application directly.
 */
export { createWorkerMetrics, type WorkerMetrics } from "./observability/metrics.ts";
export { type MetricsServer, startMetricsServer } from "./observability/server.ts";
export { type ApplyOutcome, applySnapshot } from "./snapshots/apply-snapshot.ts";
export { DEFAULT_RETENTION, purgeRetained, type RetentionCounts, type RetentionSettings } from "./retention.ts";
export { type PurgeCounts, purgeExpired } from "./tasks/purge-expired.ts";
export { type RunningWorker, type StartWorkerOptions, startWorker } from "./worker.ts";
