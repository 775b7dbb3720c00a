/**
 * How a migration run that failed is reported (docs/decisions/0028): the
 * tagged errors the migrator returns, their one-line messages (which
 * migration, what stays applied, what held the locks, what to do), and how
 * the scripts and processes write them.
 */
import { Data } from "effect";

/** A session that held a table lock for at least one whole lock wait of the migrator's last attempt. */
export interface LockHolder {
  readonly pid: number;
  readonly state: string | null;
  readonly applicationName: string;
  readonly transactionStart: string;
  readonly query: string;
  /** `mode on table`, e.g. `RowExclusiveLock on public.payments`. */
  readonly locks: ReadonlyArray<string>;
}

/**
 * The migrator gave up: its last attempt at `migration` still could not get a
 * lock in time. That migration was not applied; those in `applied` were,
 * before it in the same run, and stay so.
 */
export class MigrationLockUnavailable extends Data.TaggedError("MigrationLockUnavailable")<{
  readonly message: string;
  readonly migration: string | undefined;
  readonly applied: ReadonlyArray<string>;
  readonly attempts: number;
  readonly holders: ReadonlyArray<LockHolder>;
  readonly cause: unknown;
}> {}

/**
 * A migration failed for another reason than a lock it could not get, or
 * its failure is reported with the migrations applied before it in the
 * same run (each commits on its own: they stay applied).
 */
export class MigrationFailed extends Data.TaggedError("MigrationFailed")<{
  readonly message: string;
  readonly migration: string | undefined;
  readonly applied: ReadonlyArray<string>;
  readonly cause: unknown;
}> {}

/** The failure's message: what could not be had, what is holding it, and what to do. */
export const lockUnavailableMessage = (failure: {
  readonly migration: string | undefined;
  readonly applied: ReadonlyArray<string>;
  readonly attempts: number;
  readonly lockTimeoutMs: number;
  readonly holders: ReadonlyArray<LockHolder>;
}): string => {
  const holders =
    failure.holders.length === 0
      ? "No session holds a table lock now: the blocker has ended, so migrating again should succeed."
      : `Sessions holding table locks since before the last attempt: ${failure.holders
          .map(
            (holder) =>
              `pid ${holder.pid} (${holder.state ?? "unknown state"}, in a transaction since ${holder.transactionStart}` +
              `${holder.applicationName === "" ? "" : `, application ${JSON.stringify(holder.applicationName)}`}, ` +
              `last query ${JSON.stringify(holder.query)}) holds ${holder.locks.join(", ")}`,
          )
          .join("; ")}.`;
  return (
    `migration ${failure.migration ?? "(unknown)"} could not get a table lock within ${failure.lockTimeoutMs} ms ` +
    `in ${failure.attempts} attempt${failure.attempts === 1 ? "" : "s"}; ${appliedBefore(failure.applied)}. ${holders} ` +
    "Find the blocker in pg_stat_activity and pg_locks (the holders above, or " +
    "`select pid, pg_blocking_pids(pid), query from pg_stat_activity` while the migrator waits), let it finish " +
    "or end it with pg_terminate_backend(pid), then migrate again; MIGRATION_LOCK_TIMEOUT_MS and " +
    "MIGRATION_LOCK_RETRIES set how long the migrator tries (docs/operations.md, Upgrades)."
  );
};

/** What a failure left applied: each migration commits on its own, so those before the failing one stay. */
const appliedBefore = (applied: ReadonlyArray<string>): string =>
  applied.length === 0
    ? "nothing was applied"
    : `it was not applied; ${applied.join(", ")} ${applied.length === 1 ? "was" : "were"} applied before it and ` +
      `${applied.length === 1 ? "stays" : "stay"} applied`;

/** The message of a `MigrationFailed`: the migration, its error's message, and what stays applied. */
export const migrationFailedMessage = (
  migration: string | undefined,
  applied: ReadonlyArray<string>,
  cause: unknown,
): string =>
  `migration ${migration ?? "(unknown)"} failed: ${cause instanceof Error ? cause.message : String(cause)}; ` +
  `${appliedBefore(applied)}`;

/**
 * A failure the migrator has already explained: its message names the
 * migration, what stays applied and what to do, so the processes report it
 * as that one line, not as a stack.
 */
export const isMigrationFailure = (error: unknown): error is MigrationLockUnavailable | MigrationFailed =>
  error instanceof MigrationLockUnavailable || error instanceof MigrationFailed;

/** The fields of the api's and the worker's one log line for a migration that failed at start-up. */
export const migrationFailureFields = (
  error: MigrationLockUnavailable | MigrationFailed,
): { readonly migration: string | undefined; readonly reason: string } => ({
  migration: error.migration,
  reason: error.message,
});

/**
 * One line for a failed migration, for the paths that report on stderr
 * (`pnpm db:migrate`, `pnpm dev`, the admin CLI): its message names the
 * migration, what stays applied and what to do, so no stack is added.
 */
export const describeMigrationFailure = (error: unknown): string =>
  `migration failed: ${error instanceof Error ? error.message : String(error)}`;
