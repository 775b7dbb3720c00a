/** The worker as a library: start it in-process, or run the purge or a snapshot's application directly. */
export { type Clock, fixedClock, systemClock } from "./clock.ts";
export { type ApplyOutcome, applySnapshot } from "./snapshots/apply-snapshot.ts";
export { type PurgeCounts, purgeExpired } from "./tasks/purge-expired.ts";
export { type RunningWorker, type StartWorkerOptions, startWorker } from "./worker.ts";
