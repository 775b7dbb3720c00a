/**
 * The real worker as the statement-fault sweeps run it: only its own pool's
 * statements are counted (`WORKER_POOL_NAME`); jobs start only when
 * announced, never by a poll; its periodic sweep (every hour here) never
 * comes within a test; and it is started and stopped quiet, so no fault is
 * armed while it still runs its start-up sweep or still holds connections.
 */
import { armFault, disarmFault, unavailableError, unexpectedError } from "@dc/testing";
import type { Database } from "@dc/db";
import { type Kysely, sql } from "kysely";
import { afterEach, beforeEach } from "vitest";
import { type RunningWorker, startWorker, type StartWorkerOptions, WORKER_POOL_NAME } from "../src/worker.ts";
import { waitFor } from "./wait-for.ts";

/** One way a statement is made to fail. */
export interface Failure {
  readonly kind: string;
  readonly error: () => Error;
  /** What graphile-worker records as the attempt's error. */
  readonly message: string;
}

/** A failure nobody can classify (a bug). */
export const unexpected: Failure = { kind: "an unexpected failure", error: unexpectedError, message: "injected fault" };
/** The database ending the session (57P01). */
export const unavailable: Failure = {
  kind: "the database unavailable",
  error: unavailableError,
  message: "terminating connection due to administrator command",
};

/** Only the worker's own statements are counted: not the test's, nor graphile-worker's. */
export const workerConnections: ReadonlySet<string> = new Set([WORKER_POOL_NAME]);

/**
 * Waits until the worker has run its start-up sweep and its pool has been
 * quiet for 100 ms since. The sweep is awaited, not inferred from a pause in
 * its statements: on a loaded machine (CI) it can pause longer than that
 * mid-way, and a test would then read a spent job the sweep had yet to
 * remove.
 */
const settle = async (started: RunningWorker): Promise<void> => {
  await started.startupSweep;
  armFault(Number.MAX_SAFE_INTEGER, unexpectedError, workerConnections);
  await disarmFault(100);
};

/** Starts the real worker with `options`, one job at a time, no polling and an hourly sweep, and waits until it is quiet. */
export const startQuietWorker = async (
  options: Omit<StartWorkerOptions, "concurrency" | "staleLockSeconds" | "pollIntervalMs">,
): Promise<RunningWorker> => {
  const started = await startWorker({
    ...options,
    concurrency: 1,
    staleLockSeconds: 14_400,
    pollIntervalMs: 3_600_000,
  });
  await settle(started);
  return started;
};

/**
 * Stops a worker and waits until its connections are closed: a pool's end
 * resolves before its connections are, and the next test's worker must not
 * meet them (nor the file's database drop).
 */
export const stopQuietWorker = async (running: RunningWorker, db: Kysely<Database>): Promise<void> => {
  await running.stop();
  await waitFor("the worker's connections to close", async () => {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and application_name <> 'debt-collection'`.execute(
      db,
    );
    return rows[0]?.n === 0 ? true : undefined;
  });
};

type QuietWorkerOptions = Parameters<typeof startQuietWorker>[0];

/** The file's per-test worker (see `quietWorkerPerTest`). */
export interface PerTestWorker {
  /** A worker of its own, outside the per-test one (stop it with `stopQuietWorker`). */
  readonly start: () => Promise<RunningWorker>;
  /** Stops the test's worker now (nothing runs jobs until `restart`). */
  readonly stop: () => Promise<void>;
  /** Stops the test's worker and starts a new one, whose start-up sweep runs before this resolves. */
  readonly restart: () => Promise<void>;
}

/**
 * One quiet worker per test: started before each test of the file, stopped
 * (with its connections closed) after it.
 */
export const quietWorkerPerTest = (options: QuietWorkerOptions, db: Kysely<Database>): PerTestWorker => {
  let worker: RunningWorker | undefined;
  const stop = async (): Promise<void> => {
    if (worker !== undefined) await stopQuietWorker(worker, db);
    worker = undefined;
  };
  beforeEach(async () => {
    worker = await startQuietWorker(options);
  });
  afterEach(stop);
  return {
    start: () => startQuietWorker(options),
    stop,
    restart: async () => {
      await stop();
      worker = await startQuietWorker(options);
    },
  };
};
