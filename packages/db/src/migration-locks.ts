/**
 * How long a migration may wait for a table lock (docs/decisions/0028).
 * PostgreSQL queues lock requests in order: a migration waiting for a lock
 * that a long transaction holds makes every later conflicting request on
 * that table wait behind it, so without a bound the api stalls for as long
 * as the blocker lives. The migrator's session sets `lock_timeout`; when a
 * wait outlasts it (SQLSTATE 55P03) the migration's transaction rolls back whole,
 * the queue drains, and the migrator tries again after a pause of the same
 * length, a bounded number of times.
 */
import { type Kysely, sql } from "kysely";
import { type LockHolder, lockUnavailableMessage, MigrationLockUnavailable } from "./migration-failures.ts";
import { isLockNotAvailable } from "./sqlstate.ts";

/** The migrator's lock settings (`MIGRATION_LOCK_TIMEOUT_MS`, `MIGRATION_LOCK_RETRIES`). */
export interface MigrationLocks {
  /** How long one lock wait of a migration may last (`lock_timeout`), and the pause between attempts. */
  readonly lockTimeoutMs: number;
  /** Further attempts after the first one ran out of time waiting for a lock. */
  readonly retries: number;
}

/** Suits a deploy: the api's writes wait at most 3 s behind the migrator, which tries for about a minute. */
export const DEFAULT_MIGRATION_LOCKS: MigrationLocks = { lockTimeoutMs: 3_000, retries: 10 };

/** One attempt that ran out of time waiting for a lock, reported before the pause that precedes the next. */
export interface MigrationRetry {
  /** The attempt that failed, from 1. */
  readonly attempt: number;
  readonly retries: number;
  /** The migration that waited, when the migrator says which. */
  readonly migration: string | undefined;
  readonly lockTimeoutMs: number;
  readonly pauseMs: number;
}

/** How one run of the migrator waits for its locks, reports its retries, and pauses. */
export interface MigrationLockPolicy extends MigrationLocks {
  /** Called before each pause: log it (the processes warn, the scripts write to stderr). */
  readonly onRetry?: (retry: MigrationRetry) => void;
  /** Waits between attempts; tests pass their own to act between two attempts. */
  readonly pause?: (ms: number) => Promise<void>;
}

/**
 * The sessions holding a table lock whose transaction began at least
 * `lockTimeoutMs` ago, so that were there for the migrator's whole last
 * wait: the likely blockers, named in the failure's message.
 */
export const lockHolders = async <DB>(db: Kysely<DB>, lockTimeoutMs: number): Promise<ReadonlyArray<LockHolder>> => {
  const { rows } = await sql<LockHolder>`
    select a.pid, a.state, a.application_name as "applicationName",
      to_char(a.xact_start at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "transactionStart",
      left(a.query, 200) as query,
      array_agg(l.mode || ' on ' || n.nspname || '.' || c.relname order by n.nspname, c.relname, l.mode) as locks
    from pg_locks l
    join pg_stat_activity a on a.pid = l.pid
    join pg_class c on c.oid = l.relation
    join pg_namespace n on n.oid = c.relnamespace
    where l.locktype = 'relation' and l.granted and c.relkind in ('r', 'p')
      and l.database = (select oid from pg_database where datname = current_database())
      and n.nspname not in ('pg_catalog', 'information_schema')
      and a.pid <> pg_backend_pid()
      and a.xact_start <= now() - make_interval(secs => ${lockTimeoutMs / 1000})
    group by a.pid, a.state, a.application_name, a.xact_start, a.query
    order by a.xact_start, a.pid`.execute(db);
  return rows;
};

/** One line for a retry, for the paths that report on stderr (`pnpm db:migrate`, `pnpm dev`). */
export const describeMigrationRetry = (retry: MigrationRetry): string =>
  `migration ${retry.migration ?? "(unknown)"} waited ${retry.lockTimeoutMs} ms for a lock without getting it ` +
  `(attempt ${retry.attempt} of ${retry.retries + 1}); rolled back, trying again in ${retry.pauseMs} ms`;

/** The migration that waited, and those applied before it in the same run. */
export interface MigrationPosition {
  readonly migration: string | undefined;
  readonly applied: ReadonlyArray<string>;
}

/**
 * Runs one migration step (`attempt`: Kysely's `migrateUp`, or
 * graphile-worker's migrations) under the policy of docs/decisions/0028: when
 * its `error` is a lock wait that ran out (55P03), `policy.onRetry` is told,
 * it pauses as long as the lock timeout and tries again, up to
 * `policy.retries` times; when none are left, the `error` becomes a
 * `MigrationLockUnavailable` naming the migration and those applied before
 * it in this run (`locate`), and the sessions holding table locks. Any other
 * outcome is returned as it is. The one place for the rule.
 */
export const withLockRetries = async <DB, R extends { readonly error?: unknown }>(
  db: Kysely<DB>,
  policy: MigrationLockPolicy,
  attempt: () => Promise<R>,
  locate: (result: R) => Promise<MigrationPosition> | MigrationPosition,
): Promise<R> => {
  for (let attempts = 1; ; attempts++) {
    const result = await attempt();
    if (!isLockNotAvailable(result.error)) return result;
    const { migration, applied } = await locate(result);
    if (attempts > policy.retries) {
      const holders = await lockHolders(db, policy.lockTimeoutMs);
      const failure = { migration, applied, attempts, lockTimeoutMs: policy.lockTimeoutMs, holders };
      return {
        ...result,
        error: new MigrationLockUnavailable({
          ...failure,
          message: lockUnavailableMessage(failure),
          cause: result.error,
        }),
      };
    }
    const pauseMs = policy.lockTimeoutMs;
    policy.onRetry?.({
      attempt: attempts,
      retries: policy.retries,
      migration,
      lockTimeoutMs: policy.lockTimeoutMs,
      pauseMs,
    });
    await (policy.pause ?? sleep)(pauseMs);
  }
};

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
