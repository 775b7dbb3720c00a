/**
 * Starts graphile-worker with this app's tasks and schedule, and stops it
 * gracefully. Signals are the caller's business (see main.ts).
 */
import { EventEmitter } from "node:events";
import type { DebtorLinkSigner } from "@dc/crypto";
import { createDatabase, createPool, type Db, type EventIds } from "@dc/db";
import { run, type WorkerEvents } from "graphile-worker";
import type { Logger } from "pino";
import type { Clock } from "@dc/runtime";
import type { ChannelAdapters } from "./channels/channel-adapter.ts";
import { type ChannelSettings, makeChannelAdapters } from "./channels/adapters.ts";
import { cronItems, engineCronItems } from "./crontab.ts";
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "./engine/engine-settings.ts";
import { startEngineSweep } from "./tasks/engine-sweep.ts";
import { handOffQueues } from "./queue-handoff.ts";
import { createWorkerMetrics, type WorkerMetrics } from "./observability/metrics.ts";
import { sweepIntervalMs, sweepStaleLocks } from "./stale-locks.ts";
import { buildTaskList } from "./task-list.ts";
import { failSpentSnapshots } from "./tasks/apply-snapshot.ts";
import { rescheduleSpentDeliveries } from "./tasks/deliver-webhook.ts";
import { DEFAULT_STALE_LOCK_SECONDS, type Fence, FENCED_EXIT_CODE, holdLeases } from "./worker-lease.ts";
import { toWorkerLogger } from "./worker-logger.ts";
import type { WebhookDeliverySettings } from "./webhooks/settings.ts";
import type { RetentionSettings } from "./retention.ts";

/** The `application_name` of the worker's own pool (the tasks' queries), as `pg_stat_activity` shows it. */
export const WORKER_POOL_NAME = "dc-worker";

/** The `application_name` of graphile-worker's pool (taking and completing jobs, LISTEN, cron). */
export const JOB_QUEUE_POOL_NAME = "dc-worker-queue";

/** The `application_name` of the queue hand-off's one connection (queue-handoff.ts). */
export const QUEUE_HANDOFF_POOL_NAME = "dc-worker-handoff";

export interface StartWorkerOptions {
  /** Database holding both our tables and graphile-worker's schema (already migrated). */
  readonly connectionString: string;
  /** Jobs run at once. */
  readonly concurrency: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * The public id codec, `makeIds(ID_ENCRYPTION_KEY)` with the api's key:
   * the webhook events a snapshot records carry the ids the api returns.
   */
  readonly ids: EventIds;
  /**
   * Signs the debtor page links of the messages and of the debt.* webhook
   * payloads: the api's public origin (`PUBLIC_BASE_URL`) and the same
   * `ID_ENCRYPTION_KEY`, so they are the links the api presents.
   */
  readonly links: DebtorLinkSigner;
  /**
   * The grace of the worker leases, at least 1 (`WORKER_STALE_LOCK_SECONDS`):
   * the jobs of a pool that has not renewed its lease for this many seconds
   * are released (stale-locks.ts), and a pool of this worker that cannot
   * renew its own for half of it fences (worker-lease.ts). Default
   * `DEFAULT_STALE_LOCK_SECONDS`.
   */
  readonly staleLockSeconds?: number;
  /**
   * What a fence does: it must stop every job of the worker at once.
   * Default: log it and end the process with `FENCED_EXIT_CODE`.
   */
  readonly onFenced?: (fence: Fence) => void;
  /** Webhook delivery settings; without them this worker runs no `deliver_webhook` job. */
  readonly webhooks?: WebhookDeliverySettings;
  /** What the hourly purge keeps (docs/decisions/0021); default `DEFAULT_RETENTION`. */
  readonly retention?: RetentionSettings;
  /**
   * Where the runs are recorded (serve its registry with
   * observability/server.ts). Default: a registry of its own, not served.
   */
  readonly metrics?: WorkerMetrics;
  /**
   * How often an idle worker looks for due jobs that no notification
   * announced (graphile-worker's `pollInterval`). Default 2000. Tests set it
   * high to show that a job is started by a notification, not by a poll.
   */
  readonly pollIntervalMs?: number;
  /**
   * The collection engine (docs/decisions/0600): its sweep and the sandbox
   * clock jobs run on this worker. `channels` configures the providers
   * (channels/adapters.ts); `adapters` replaces them (tests, benchmarks);
   * `settings` overrides `DEFAULT_ENGINE_SETTINGS`. Without it, none of the
   * engine's jobs run here.
   */
  readonly engine?: {
    readonly channels?: ChannelSettings;
    readonly adapters?: (db: Db) => ChannelAdapters;
    readonly settings?: Partial<EngineSettings>;
  };
}

export interface RunningWorker {
  /**
   * Stops taking jobs, waits for the jobs in flight, then closes the pools
   * and waits for their connections to end.
   * Calling it again returns the same promise.
   */
  readonly stop: () => Promise<void>;
  /** Settles when the runner ends: resolves after `stop()`, rejects if the runner fails on its own. */
  readonly finished: Promise<void>;
  /**
   * Resolves when the start-up sweep has run: locks a crashed worker left
   * freed, spent snapshot and delivery jobs recorded. It never rejects.
   */
  readonly startupSweep: Promise<void>;
}

/**
 * Runs the worker until `stop()`.
 *
 * @example
 * const worker = await startWorker({ connectionString, concurrency: 4, clock: systemClock, logger, ids: makeIds(key), links: { origin, secret: key } });
 * process.once("SIGTERM", () => void worker.stop());
 */
export const startWorker = async (options: StartWorkerOptions): Promise<RunningWorker> => {
  const { connectionString, concurrency, clock, logger, ids, links, staleLockSeconds = DEFAULT_STALE_LOCK_SECONDS } = options;
  const metrics = options.metrics ?? createWorkerMetrics(logger);
  // Each job holds at most one connection of this pool at a time; the spare
  // one serves the stale-lock sweep and metrics scrapes.
  const db = createDatabase({ connectionString, max: concurrency + 1, applicationName: WORKER_POOL_NAME });
  // graphile-worker's pool, a connection per running job plus LISTEN and cron,
  // is ours so that a stop waits for it to close: graphile-worker ends a pool
  // it made without waiting, and a stop that goes on to stop the database
  // (the embedded cluster) would then cut those connections and fail.
  const queuePool = createPool({
    connectionString,
    max: concurrency + 2,
    applicationName: JOB_QUEUE_POOL_NAME,
    driverTypeParsers: true,
  });
  const engineOptions = options.engine;
  const adapters =
    engineOptions === undefined
      ? undefined
      : (engineOptions.adapters?.(db) ??
        makeChannelAdapters(db, { now: () => clock.now(), ...(engineOptions.channels ?? { smtp: undefined }) }, ids));
  const engine =
    engineOptions === undefined || adapters === undefined
      ? undefined
      : { adapters, settings: { ...DEFAULT_ENGINE_SETTINGS, ...engineOptions.settings } };
  const events: WorkerEvents = new EventEmitter();
  const leases = holdLeases(events, {
    connectionString,
    graceSeconds: staleLockSeconds,
    logger,
    onFenced:
      options.onFenced ??
      ((fence) => {
        logger.fatal(
          { workerPool: fence.pool, sinceRenewalMs: Math.round(fence.sinceRenewalMs), staleLockSeconds },
          "worker lease not renewed for half the grace: exiting before another worker takes its jobs",
        );
        process.exit(FENCED_EXIT_CODE);
      }),
  });
  const detachMetrics = metrics.attach(events, db);
  // The hand-off reads the jobs view every few milliseconds after a job ends: on a connection of its own, it
  // never takes one a job is waiting for, and its reads are not counted among the tasks' statements.
  const handoffDb = createDatabase({ connectionString, max: 1, applicationName: QUEUE_HANDOFF_POOL_NAME });
  const handoff = handOffQueues(events, handoffDb);
  const detachHandoff = async (): Promise<void> => {
    handoff.detach();
    await handoff.settled();
    await handoffDb.destroy();
  };
  const runner = await run({
    pgPool: queuePool,
    concurrency,
    noHandleSignals: true,
    logger: toWorkerLogger(logger),
    taskList: buildTaskList({
      db,
      clock,
      logger,
      metrics,
      ids,
      links,
      ...(options.webhooks === undefined ? {} : { webhooks: options.webhooks }),
      ...(options.retention === undefined ? {} : { retention: options.retention }),
      ...(engine === undefined ? {} : { engine }),
    }),
    parsedCronItems: [...cronItems, ...(engine === undefined ? [] : engineCronItems)],
    events,
    // Unbatched, graphile-worker records a job's completion or failure without
    // awaiting it, so a graceful stop could end the pool first and leave a
    // finished job locked for 4 hours (then run again). Its batchers are
    // flushed on shutdown; a delay of 0 batches nothing.
    preset: {
      worker: {
        completeJobBatchDelay: 0,
        failJobBatchDelay: 0,
        ...(options.pollIntervalMs === undefined ? {} : { pollInterval: options.pollIntervalMs }),
      },
    },
  }).catch(async (error: unknown) => {
    detachMetrics();
    await detachHandoff();
    await leases.stop();
    await adapters?.close?.();
    await db.destroy();
    await queuePool.end();
    throw error;
  });
  // The engine's sweep chain starts with the worker (a sweep already waiting keeps its time).
  if (engine !== undefined) {
    await startEngineSweep(db).catch((error: unknown) =>
      logger.error({ err: error }, "engine sweep not scheduled at start-up: the minute's safety net will add it"),
    );
  }

  // Jobs a crashed worker left locked are freed now, then checked periodically;
  // then open snapshots whose apply job is spent get the failure their last
  // attempt could not record (docs/decisions/0354); with webhook delivery,
  // pending deliveries whose job is spent get it counted as a failed attempt
  // and their next one scheduled (docs/decisions/0455). No step throws.
  // The sweep in flight is awaited on stop, before the pool it uses is closed.
  const { webhooks } = options;
  const sweep = async (): Promise<void> => {
    await sweepStaleLocks(db, staleLockSeconds, leases.own, logger);
    await failSpentSnapshots({ db, clock, logger });
    if (webhooks !== undefined) await rescheduleSpentDeliveries({ db, clock, logger }, webhooks);
  };
  let sweeping = sweep();
  const startupSweep = sweeping;
  const sweeper = setInterval(() => {
    sweeping = sweep();
  }, sweepIntervalMs(staleLockSeconds));
  sweeper.unref();
  const stopRunner = async (): Promise<void> => {
    clearInterval(sweeper);
    await sweeping;
    try {
      await runner.stop();
    } catch {
      // The runner already stopped itself after a failure, reported through `finished`.
      await runner.promise.catch(() => undefined);
    } finally {
      detachMetrics();
      await detachHandoff();
      await leases.stop();
      await adapters?.close?.();
      await db.destroy();
      await queuePool.end();
    }
  };
  // graphile-worker logs a runner failure itself; only callers that watch `finished` need to act on it.
  runner.promise.catch(() => undefined);
  let stopping: Promise<void> | undefined;
  return {
    stop: () => (stopping ??= stopRunner()),
    finished: runner.promise,
    startupSweep,
  };
};
