/**
 * Starts graphile-worker with this app's tasks and schedule, and stops it
 * gracefully. Signals are the caller's business (see main.ts).
 */
import { createDatabase } from "@dc/db";
import { run } from "graphile-worker";
import type { Logger } from "pino";
import type { Clock } from "./clock.ts";
import { cronItems } from "./crontab.ts";
import { buildTaskList } from "./task-list.ts";
import { toWorkerLogger } from "./worker-logger.ts";

export interface StartWorkerOptions {
  /** Database holding both our tables and graphile-worker's schema (already migrated). */
  readonly connectionString: string;
  /** Jobs run at once. */
  readonly concurrency: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface RunningWorker {
  /**
   * Stops taking jobs, waits for the jobs in flight, then closes the pools.
   * Calling it again returns the same promise.
   */
  readonly stop: () => Promise<void>;
  /** Settles when the runner ends: resolves after `stop()`, rejects if the runner fails on its own. */
  readonly finished: Promise<void>;
}

/**
 * Runs the worker until `stop()`.
 *
 * @example
 * const worker = await startWorker({ connectionString, concurrency: 4, clock: systemClock, logger });
 * process.once("SIGTERM", () => void worker.stop());
 */
export const startWorker = async (options: StartWorkerOptions): Promise<RunningWorker> => {
  const { connectionString, concurrency, clock, logger } = options;
  // Each job holds at most one connection of this pool at a time.
  const db = createDatabase({ connectionString, max: concurrency + 1, applicationName: "dc-worker" });
  const runner = await run({
    connectionString,
    concurrency,
    // graphile-worker's own pool: a connection per running job, plus listen and cron.
    maxPoolSize: concurrency + 2,
    noHandleSignals: true,
    logger: toWorkerLogger(logger),
    taskList: buildTaskList({ db, clock, logger }),
    parsedCronItems: [...cronItems],
    // Unbatched, graphile-worker records a job's completion or failure without
    // awaiting it, so a graceful stop could end the pool first and leave a
    // finished job locked for 4 hours (then run again). Its batchers are
    // flushed on shutdown; a delay of 0 batches nothing.
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
  }).catch(async (error: unknown) => {
    await db.destroy();
    throw error;
  });

  const stopRunner = async (): Promise<void> => {
    try {
      await runner.stop();
    } catch {
      // The runner already stopped itself after a failure, reported through `finished`.
      await runner.promise.catch(() => undefined);
    } finally {
      await db.destroy();
    }
  };
  // graphile-worker logs a runner failure itself; only callers that watch `finished` need to act on it.
  runner.promise.catch(() => undefined);
  let stopping: Promise<void> | undefined;
  return {
    stop: () => (stopping ??= stopRunner()),
    finished: runner.promise,
  };
};
