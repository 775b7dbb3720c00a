/**
 * Frees the jobs of worker processes that died (docs/decisions/0357).
 * graphile-worker keeps a dead worker's jobs (and their queues: a campaign's
 * snapshots) locked for 4 hours. Each of our pools keeps a connection named
 * after its pool id; a pool whose locks are older than the threshold and that
 * has no such connection any more is dead, and its locks
 * are released with graphile-worker's `force_unlock_workers`. Runs at
 * start-up (once the runner is up, so an unreachable database fails the start
 * as before) and then periodically. Safe for `apply_snapshot`: applying is
 * idempotent under the snapshot row lock.
 */
import { createPool, type Database } from "@dc/db";
import type { WorkerEvents } from "graphile-worker";
import { type Kysely, sql } from "kysely";
import type { Logger } from "pino";

/** `application_name` of a live pool's presence connection: this prefix and the pool id. */
export const LIVENESS_PREFIX = "dc-worker-pool:";

const PRESENCE_RETRY_MS = 5_000;

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
 * Unlocks every job and queue held by a pool, other than `own`, that holds a
 * lock older than `staleSeconds` and whose process has no presence connection
 * open (`application_name` = the liveness prefix + the pool's id). Returns
 * the pools freed.
 */
export const unlockStaleWorkers = async (
  db: Kysely<Database>,
  staleSeconds: number,
  own: ReadonlySet<string> = new Set(),
): Promise<Array<string>> => {
  const { rows } = await sql<{ locked_by: string }>`
    select distinct j.locked_by from graphile_worker.jobs j
    where j.locked_by is not null and j.locked_at < now() - make_interval(secs => ${staleSeconds})
      and j.locked_by <> all(${[...own]}::text[])
      and not exists (
        select 1 from pg_stat_activity a where a.application_name = ${LIVENESS_PREFIX} || j.locked_by
      )
  `.execute(db);
  const pools = rows.map((row) => row.locked_by);
  if (pools.length > 0) await sql`select graphile_worker.force_unlock_workers(${pools}::text[])`.execute(db);
  return pools;
};

/**
 * Frees every named queue locked, for longer than `staleSeconds`, by a pool
 * that runs none of that queue's jobs, and returns them. graphile-worker
 * locks a queue and one of its jobs in one statement and frees both in one
 * statement, so such a lock is a leftover: a job run twice after its lock was
 * released (a pool taken for dead while alive, see above) and completed
 * first by the first runner; the second runner's completion then finds the
 * job gone and leaves the queue locked by its own, live, pool, which no job
 * lock names, until graphile-worker's 4-hour reset, with a campaign's
 * snapshots waiting behind it (docs/decisions/0357).
 */
export const releaseOrphanedQueueLocks = async (
  db: Kysely<Database>,
  staleSeconds: number,
): Promise<Array<{ queue: string; pool: string }>> => {
  // The lock is freed only as it was read: a queue locked again meanwhile (another job taken) is left alone.
  const { rows } = await sql<{ queue: string; pool: string }>`
    update graphile_worker._private_job_queues q set locked_by = null, locked_at = null
    from (
      select o.id, o.locked_by, o.locked_at from graphile_worker._private_job_queues o
      where o.locked_by is not null and o.locked_at < now() - make_interval(secs => ${staleSeconds})
        and not exists (
          select 1 from graphile_worker._private_jobs j where j.job_queue_id = o.id and j.locked_by = o.locked_by
        )
    ) orphan
    where q.id = orphan.id and q.locked_by = orphan.locked_by and q.locked_at = orphan.locked_at
    returning q.queue_name as queue, orphan.locked_by as pool
  `.execute(db);
  return rows;
};

/** How often the sweep runs: the threshold, between 1 and 60 seconds. */
export const sweepIntervalMs = (staleSeconds: number): number => Math.min(60, Math.max(1, staleSeconds)) * 1000;

/**
 * One sweep, logged; errors are logged, never thrown (the next sweep tries
 * again, and graphile-worker's own 4-hour reset remains).
 */
export const sweepStaleLocks = async (
  db: Kysely<Database>,
  staleSeconds: number,
  own: ReadonlySet<string>,
  logger: Logger,
): Promise<void> => {
  try {
    const pools = await unlockStaleWorkers(db, staleSeconds, own);
    if (pools.length > 0) logger.warn({ pools, staleLockSeconds: staleSeconds }, "unlocked jobs of dead workers");
    const queues = await releaseOrphanedQueueLocks(db, staleSeconds);
    if (queues.length > 0) logger.warn({ queues, staleLockSeconds: staleSeconds }, "unlocked queues that ran no job");
  } catch (error) {
    logger.warn({ err: error }, "could not check for stale job locks");
  }
};
