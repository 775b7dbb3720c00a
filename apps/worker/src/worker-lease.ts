/**
 * The lease of each graphile-worker pool of this process, and the fence that
 * stops the process when it cannot keep it (docs/decisions/0357).
 *
 * Another worker takes a pool for dead, and frees its jobs for a second run,
 * once the pool's lease (`worker_leases`) has not been renewed for the grace
 * (`WORKER_STALE_LOCK_SECONDS`), by the database's clock. Each pool renews
 * its lease every second through a connection of its own, named
 * `dc-worker-pool:<pool id>`. A pool that has had no renewal confirmed for
 * half the grace, counted from when the last confirmed one was sent, fences:
 * the process ends at once, its jobs with it, while its lease still has half
 * the grace to run. So a job never keeps running, nor its pool completes it,
 * once another worker may take it over; a supervisor restarts the process.
 */
import { createDatabase, endWorkerLeases, renewWorkerLease } from "@dc/db";
import type { WorkerEvents } from "graphile-worker";
import type { Logger } from "pino";

/** `application_name` of a pool's lease connection: this prefix and the pool id. */
export const LIVENESS_PREFIX = "dc-worker-pool:";

/** `WORKER_STALE_LOCK_SECONDS` by default: a dead pool's jobs are free within 15 s, a live one fences after 5. */
export const DEFAULT_STALE_LOCK_SECONDS = 10;

/** Exit status of a fenced worker process (EX_TEMPFAIL: restart it). */
export const FENCED_EXIT_CODE = 75;

/** How often a pool renews its lease: every second, or four times per grace when the grace is shorter. */
export const renewIntervalMs = (graceSeconds: number): number => Math.min(1_000, graceSeconds * 250);

/** How long a pool may go without a confirmed renewal before it fences: half the grace. */
export const fenceAfterMs = (graceSeconds: number): number => graceSeconds * 500;

/** A pool that fenced, and how long ago its last confirmed renewal was sent. */
export interface Fence {
  readonly pool: string;
  readonly sinceRenewalMs: number;
}

/** The leases of one process's pools; see `holdLeases`. */
export interface Leases {
  /** Ids of this process's own pools, which a sweep must never unlock. */
  readonly own: ReadonlySet<string>;
  /** Stops renewing and fencing, and ends the leases: once the runner has stopped. */
  readonly stop: () => Promise<void>;
}

export interface HoldLeasesOptions {
  readonly connectionString: string;
  /** `WORKER_STALE_LOCK_SECONDS`, at least 1. */
  readonly graceSeconds: number;
  readonly logger: Logger;
  /**
   * Called once, when a pool fences. It must stop every job of the process
   * at once (a graceful stop waits for them): the worker ends the process.
   */
  readonly onFenced: (fence: Fence) => void;
}

/**
 * Holds, for each pool the runner of `events` creates, a lease renewed every
 * `renewIntervalMs`, and calls `onFenced` when a pool has had no renewal
 * confirmed for `fenceAfterMs`. A pool's clock starts at its creation, before
 * it can lock any job. A dropped connection is replaced at the next renewal.
 */
export const holdLeases = (events: WorkerEvents, options: HoldLeasesOptions): Leases => {
  const { connectionString, graceSeconds, logger, onFenced } = options;
  const own = new Set<string>();
  const stops: Array<() => Promise<void>> = [];
  let stopped = false;
  let fenced = false;
  events.on("pool:create", ({ workerPool }) => {
    const pool = workerPool.id;
    own.add(pool);
    const db = createDatabase({
      connectionString,
      max: 1,
      applicationName: `${LIVENESS_PREFIX}${pool}`,
      idleTimeoutMillis: 0,
      // A renewal stuck behind a lock gives up when it could no longer keep the pool from fencing.
      statementTimeoutMs: fenceAfterMs(graceSeconds),
      onIdleConnectionError: (error) => logger.warn({ err: error, workerPool: pool }, "lease connection lost"),
    });
    let confirmedAt = performance.now();
    let failing = false;
    let renewTimer: NodeJS.Timeout | undefined;
    const fence = (): void => {
      if (stopped || fenced) return;
      fenced = true;
      onFenced({ pool, sinceRenewalMs: performance.now() - confirmedAt });
    };
    let fenceTimer = setTimeout(fence, fenceAfterMs(graceSeconds)).unref();
    const renew = async (): Promise<void> => {
      const sentAt = performance.now();
      try {
        await renewWorkerLease(db, pool, graceSeconds);
        if (stopped || fenced) return;
        if (failing) logger.info({ workerPool: pool }, "worker lease renewed again");
        failing = false;
        if (sentAt > confirmedAt) {
          confirmedAt = sentAt;
          clearTimeout(fenceTimer);
          fenceTimer = setTimeout(fence, confirmedAt + fenceAfterMs(graceSeconds) - performance.now()).unref();
        }
      } catch (error) {
        if (!failing) logger.warn({ err: error, workerPool: pool }, "could not renew the worker lease");
        failing = true;
      }
      if (!stopped && !fenced) renewTimer = setTimeout(() => void (renewing = renew()), renewIntervalMs(graceSeconds));
    };
    let renewing = renew();
    stops.push(async () => {
      clearTimeout(renewTimer);
      clearTimeout(fenceTimer);
      await renewing;
      try {
        await endWorkerLeases(db, [pool]);
      } catch (error) {
        // An expired lease whose pool locks nothing is deleted by the other workers' sweeps.
        logger.warn({ err: error, workerPool: pool }, "could not end the worker lease");
      }
      await db.destroy();
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
