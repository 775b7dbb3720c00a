/**
 * Frees the jobs of worker processes that died (docs/decisions/0357).
 * graphile-worker keeps a dead worker's jobs (and their queues: a campaign's
 * snapshots) locked for 4 hours. Each of our pools keeps a connection named
 * after its pool id, reopened every `PRESENCE_RETRY_MS` when dropped; a
 * killed process loses it at once. A pool that locks a job and has been seen
 * without that connection by two sweeps at least the grace period apart (the
 * default grace is twice the reconnect interval) is dead, and its locks are
 * released with graphile-worker's `force_unlock_workers`. Runs at start-up
 * (once the runner is up, so an unreachable database fails the start as
 * before) and then every half grace period, so a dead pool's jobs are free
 * within two grace periods of its death. Safe for `apply_snapshot`: applying
 * is idempotent under the snapshot row lock.
 */
import { createPool, type Db, findAbsentLockHolders, forceUnlockWorkers, releaseOrphanedQueueLocks } from "@dc/db";
import type { WorkerEvents } from "graphile-worker";
import type { Logger } from "pino";

/** `application_name` of a live pool's presence connection: this prefix and the pool id. */
export const LIVENESS_PREFIX = "dc-worker-pool:";

/** How long a dropped presence connection waits before it is reopened. */
export const PRESENCE_RETRY_MS = 5_000;

/**
 * Seconds a pool must stay without its presence connection before its jobs
 * are released (`WORKER_STALE_LOCK_SECONDS`): twice the reconnect interval,
 * so a live pool that is reconnecting is not taken for dead, and a dead one
 * is freed within 20 s.
 */
export const DEFAULT_STALE_LOCK_SECONDS = (2 * PRESENCE_RETRY_MS) / 1000;

/** What is used of a checked-out pg client (pg's types are not this app's dependency). */
interface PresenceClient {
  readonly release: (error?: Error) => void;
  readonly on: (event: "error", listener: (error: Error) => void) => unknown;
}

/** The presence connections of one process's pools; see `announceLiveness`. */
export interface Liveness {
  /** Ids of this process's own pools, which a sweep must never unlock. */
  readonly own: ReadonlySet<string>;
  /** Closes every presence connection. */
  readonly stop: () => Promise<void>;
}

/**
 * Holds, for each pool the runner of `events` creates, one idle connection
 * named after the pool id, so other processes can tell the pool is alive: a
 * killed process loses it at once. A dropped connection is reopened every
 * few seconds. (graphile-worker's own connections cannot be renamed without
 * running a query beside its LISTEN.)
 */
export const announceLiveness = (events: WorkerEvents, connectionString: string, logger: Logger): Liveness => {
  const own = new Set<string>();
  const stops: Array<() => Promise<void>> = [];
  let stopped = false;
  events.on("pool:create", ({ workerPool }) => {
    own.add(workerPool.id);
    const pool = createPool({ connectionString, max: 1, applicationName: `${LIVENESS_PREFIX}${workerPool.id}` });
    let client: PresenceClient | undefined;
    let retry: NodeJS.Timeout | undefined;
    const connect = async (): Promise<void> => {
      try {
        const connected: PresenceClient = await pool.connect();
        if (stopped) return connected.release();
        client = connected;
        connected.on("error", (error) => {
          // Only the connection still held: a released one may report its closing late.
          if (client !== connected) return;
          client = undefined;
          logger.warn({ err: error, workerPool: workerPool.id }, "presence connection lost");
          connected.release(error);
          if (!stopped) retry = setTimeout(() => void connect(), PRESENCE_RETRY_MS).unref();
        });
      } catch (error) {
        logger.warn({ err: error, workerPool: workerPool.id }, "could not open the presence connection");
        if (!stopped) retry = setTimeout(() => void connect(), PRESENCE_RETRY_MS).unref();
      }
    };
    void connect();
    stops.push(async () => {
      clearTimeout(retry);
      const held = client;
      client = undefined;
      held?.release();
      await pool.end();
    });
  });
  return {
    own,
    stop: async () => {
      stopped = true;
      await Promise.all(stops.map((stop) => stop()));
    },
  };
};

/**
 * Pools seen locking a job without a presence connection, each with the
 * `performance.now()` of the first sweep that saw it so. One per process,
 * kept across sweeps: a pool is dead only when a later sweep confirms it.
 */
export type AbsentPools = Map<string, number>;

/**
 * Unlocks every job and queue of each pool, other than `own`, that locks a
 * job and whose presence connection (`application_name` = the liveness
 * prefix + the pool's id) was missing at an earlier sweep at least
 * `graceSeconds` ago and is still missing now; records in `absent` the pools
 * seen missing for the first time, and forgets those seen again or holding
 * nothing. Returns the pools freed.
 *
 * A live pool's presence connection is missing only while it reconnects
 * (every `PRESENCE_RETRY_MS`): a grace longer than that never frees a live
 * pool whose database connections work.
 */
export const unlockDeadWorkers = async (
  db: Db,
  options: {
    readonly graceSeconds: number;
    readonly absent: AbsentPools;
    readonly own?: ReadonlySet<string>;
    readonly now?: number;
  },
): Promise<Array<string>> => {
  const { graceSeconds, absent, own = new Set(), now = performance.now() } = options;
  const missing = await findAbsentLockHolders(db, LIVENESS_PREFIX, own);
  const stillMissing = new Set(missing);
  for (const pool of absent.keys()) if (!stillMissing.has(pool)) absent.delete(pool);
  const dead: Array<string> = [];
  for (const pool of missing) {
    const since = absent.get(pool);
    if (since === undefined) absent.set(pool, now);
    else if (now - since >= graceSeconds * 1000) dead.push(pool);
  }
  if (dead.length > 0) {
    await forceUnlockWorkers(db, dead);
    for (const pool of dead) absent.delete(pool);
  }
  return dead;
};

/** How often the sweep runs: half the grace period, between 1 and 60 seconds. */
export const sweepIntervalMs = (graceSeconds: number): number => Math.min(60, Math.max(1, graceSeconds / 2)) * 1000;

/**
 * One sweep, logged; errors are logged, never thrown (the next sweep tries
 * again, and graphile-worker's own 4-hour reset remains).
 */
export const sweepStaleLocks = async (
  db: Db,
  staleSeconds: number,
  own: ReadonlySet<string>,
  absent: AbsentPools,
  logger: Logger,
): Promise<void> => {
  try {
    const pools = await unlockDeadWorkers(db, { graceSeconds: staleSeconds, absent, own });
    if (pools.length > 0) logger.warn({ pools, staleLockSeconds: staleSeconds }, "unlocked jobs of dead workers");
    const queues = await releaseOrphanedQueueLocks(db, staleSeconds);
    if (queues.length > 0) logger.warn({ queues, staleLockSeconds: staleSeconds }, "unlocked queues that ran no job");
  } catch (error) {
    logger.warn({ err: error }, "could not check for stale job locks");
  }
};
