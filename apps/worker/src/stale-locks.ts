/**
 * Frees the jobs of worker pools that are gone (docs/decisions/0357).
 * graphile-worker keeps a dead worker's jobs (and their queues: a campaign's
 * snapshots) locked for 4 hours. Each pool holds a lease it renews every
 * second (worker-lease.ts); a pool that locks a job and has not renewed its
 * lease within its grace is dead, since a live pool that cannot renew stops
 * its process at half the grace. Its locks are released with graphile-worker's
 * public `force_unlock_workers`, and its lease deleted. Runs at start-up
 * (once the runner is up, so an unreachable database fails the start as
 * before) and then every half grace period, so a dead pool's jobs are free
 * within one and a half grace periods of its last renewal. Running a freed
 * job again is safe: applying a snapshot is idempotent under the snapshot
 * row lock.
 */
import { type Db, deleteExpiredWorkerLeases, findExpiredLockHolders, forceUnlockWorkers } from "@dc/db";
import type { Logger } from "pino";

/**
 * Unlocks every job and queue of each pool, other than `own`, that locks a
 * job and whose lease expired (for a pool with no lease yet, whose oldest job
 * lock is older than `graceSeconds`), deletes the expired leases of pools
 * that lock nothing, and returns the pools freed.
 */
export const unlockDeadWorkers = async (
  db: Db,
  options: { readonly graceSeconds: number; readonly own?: ReadonlySet<string> },
): Promise<Array<string>> => {
  const dead = await findExpiredLockHolders(db, { graceSeconds: options.graceSeconds, own: options.own ?? new Set() });
  if (dead.length > 0) await forceUnlockWorkers(db, dead);
  await deleteExpiredWorkerLeases(db);
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
  logger: Logger,
): Promise<void> => {
  try {
    const pools = await unlockDeadWorkers(db, { graceSeconds: staleSeconds, own });
    if (pools.length > 0) logger.warn({ pools, staleLockSeconds: staleSeconds }, "unlocked jobs of dead workers");
  } catch (error) {
    logger.warn({ err: error }, "could not check for stale job locks");
  }
};
