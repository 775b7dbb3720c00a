/** The worker as a library: start it in-process, or run the purge directly. */
export { type Clock, fixedClock, systemClock } from "./clock.ts";
export { type PurgeCounts, purgeExpired } from "./tasks/purge-expired.ts";
export { type RunningWorker, type StartWorkerOptions, startWorker } from "./worker.ts";
