/**
 * Schema migrations with Kysely's Migrator. Migrations are listed in code (no
 * directory scan), so a bundled or type-stripped build finds them all.
 */
import { Logger, type RunnerOptions, runMigrations as runWorkerMigrations } from "graphile-worker";
import { type Kysely, sql } from "kysely";
import { type MigrationResult, type MigrationResultSet, Migrator } from "kysely/migration";
import { createPool } from "./connection.ts";
import * as coreDataModel from "./migrations/0001-core-data-model.ts";
import * as debtListCounters from "./migrations/0002-debt-list-counters.ts";
import * as oauthLoginSessions from "./migrations/0005-oauth-login-sessions.ts";
import * as snapshotApply from "./migrations/0007-snapshot-apply.ts";
import * as webhooks from "./migrations/0008-webhooks.ts";
import * as snapshotChunkBodies from "./migrations/0009-snapshot-chunk-bodies.ts";
import * as ledgerReferenceChecks from "./migrations/0010-ledger-reference-checks.ts";
import * as debtReferenceChecks from "./migrations/0011-debt-reference-checks.ts";
import * as timeOrderedIds from "./migrations/0012-time-ordered-ids.ts";
import * as referenceChecks from "./migrations/0013-references-checked-per-statement.ts";
import * as shardedDebtCounters from "./migrations/0014-sharded-debt-counters.ts";
import * as snapshotStatusNotifications from "./migrations/0015-snapshot-status-notifications.ts";
import * as retention from "./migrations/0016-retention.ts";
import * as stagedSnapshotExpiry from "./migrations/0017-staged-snapshot-expiry.ts";
import * as companyScopedChildKeys from "./migrations/0018-company-scoped-child-keys.ts";
import * as idempotencyKeys from "./migrations/0019-idempotency-keys.ts";
import * as tenantKeys from "./migrations/0020-tenant-keys.ts";
import * as referenceIndexes from "./migrations/0021-reference-indexes.ts";
import * as dropQueueWakeupTrigger from "./migrations/0022-drop-queue-wakeup-trigger.ts";
import { MigrationFailed, migrationFailedMessage, MigrationLockUnavailable } from "./migration-failures.ts";
import {
  type MigrationLockPolicy,
  type MigrationPosition,
  type OwnMigration,
  withLockRetries,
  withLockTimeout,
} from "./migration-locks.ts";

export const migrations: Readonly<Record<string, OwnMigration>> = {
  "0001-core-data-model": coreDataModel,
  "0002-debt-list-counters": debtListCounters,
  "0005-oauth-login-sessions": oauthLoginSessions,
  "0007-snapshot-apply": snapshotApply,
  "0008-webhooks": webhooks,
  "0009-snapshot-chunk-bodies": snapshotChunkBodies,
  "0010-ledger-reference-checks": ledgerReferenceChecks,
  "0011-debt-reference-checks": debtReferenceChecks,
  "0012-time-ordered-ids": timeOrderedIds,
  "0013-references-checked-per-statement": referenceChecks,
  "0014-sharded-debt-counters": shardedDebtCounters,
  "0015-snapshot-status-notifications": snapshotStatusNotifications,
  "0016-retention": retention,
  "0017-staged-snapshot-expiry": stagedSnapshotExpiry,
  "0018-company-scoped-child-keys": companyScopedChildKeys,
  "0019-idempotency-keys": idempotencyKeys,
  "0020-tenant-keys": tenantKeys,
  "0021-reference-indexes": referenceIndexes,
  "0022-drop-queue-wakeup-trigger": dropQueueWakeupTrigger,
};

/**
 * Kysely's migrator over this project's migrations, for stopping at a given
 * one (`migrateTo("0019-idempotency-keys")`) or stepping (`migrateUp`,
 * `migrateDown`), as the migration benchmark does. Each call runs every
 * migration it applies in one transaction (`migrateTo` over several holds the
 * first one's locks until the last one commits); `migrateToLatest` below does
 * not use it so, but steps with `migrateUp`. With `lockTimeoutMs`, that
 * transaction gives up a lock wait after that long (SQLSTATE 55P03, the
 * result's `error`); without it, it waits for good.
 */
export const schemaMigrator = <DB>(db: Kysely<DB>, options: { readonly lockTimeoutMs?: number } = {}): Migrator =>
  migratorOf(db, migrations, options.lockTimeoutMs);

const migratorOf = <DB>(
  db: Kysely<DB>,
  own: Readonly<Record<string, OwnMigration>>,
  lockTimeoutMs: number | undefined,
): Migrator => {
  const provided = lockTimeoutMs === undefined ? own : withLockTimeout(own, lockTimeoutMs);
  return new Migrator({ db: db as unknown as Kysely<unknown>, provider: { getMigrations: async () => provided } });
};

/**
 * Applies every pending migration, one transaction each (docs/decisions/0028):
 * Kysely's `migrateUp` until it applies nothing (that last call
 * refuses a database holding a migration this code does not know), with
 * `disableTransactions` for a migration that declares `withoutTransaction`
 * (`OwnMigration`; `createIndexConcurrently`). Each call takes
 * the Migrator's advisory lock on a connection, applies the next pending
 * migration in a transaction of its own and commits it, then releases the
 * lock, so a migration's locks last as long as that migration and no longer,
 * and the next call reads again what is pending. Each lock wait is bounded by
 * `policy.lockTimeoutMs`; a wait that runs out rolls back that migration's
 * transaction only and the same migration is tried again after a pause as
 * long, `policy.retries` times (migration-locks.ts, `withLockRetries`): the
 * retries are counted per migration. Migrations committed before a failure
 * stay applied. The result's `results` list every migration applied across
 * the steps, then the failing one (status `Error`); its `error` is then a
 * `MigrationLockUnavailable` naming the lock holders when the retries ran
 * out, a `MigrationFailed` naming the migration otherwise, both listing the
 * migrations applied before it in this run.
 */
export const migrateToLatest = async <DB>(
  db: Kysely<DB>,
  policy: MigrationLockPolicy,
  provided: Readonly<Record<string, OwnMigration>> = migrations,
): Promise<MigrationResultSet> => {
  const migrator = migratorOf(db, provided, policy.lockTimeoutMs);
  const applied: MigrationResult[] = [];
  for (;;) {
    // The next pending migration decides whether the step runs in a transaction. Read outside the Migrator's
    // advisory lock: should another migrator apply it meanwhile, the wrapper refuses the mismatch (withLockTimeout).
    const pending = await migrator.getMigrations().then(
      (all) => all.find(({ executedAt }) => executedAt === undefined),
      (error: unknown) => ({ error }),
    );
    if (pending !== undefined && "error" in pending) {
      const names = applied.map(({ migrationName }) => migrationName);
      const message = migrationFailedMessage(undefined, names, pending.error);
      return {
        error: new MigrationFailed({ message, migration: undefined, applied: names, cause: pending.error }),
        results: applied,
      };
    }
    // With nothing pending the step still runs: under its lock, Kysely refuses a database that holds a
    // migration this code does not know (a newer release's), and ends the loop by applying nothing.
    const disableTransactions = pending !== undefined && provided[pending.name]?.withoutTransaction === true;
    const step = await withLockRetries(
      db,
      policy,
      () => migrator.migrateUp({ disableTransactions }),
      (result) => ({
        migration: result.results?.find(({ status }) => status === "Error")?.migrationName,
        applied: applied.map(({ migrationName }) => migrationName),
      }),
    );
    const results = step.results ?? [];
    if (step.error !== undefined) {
      const migration = results.find(({ status }) => status === "Error")?.migrationName;
      const names = applied.map(({ migrationName }) => migrationName);
      const error =
        step.error instanceof MigrationLockUnavailable
          ? step.error
          : new MigrationFailed({
              message: migrationFailedMessage(migration, names, step.error),
              migration,
              applied: names,
              cause: step.error,
            });
      return { error, results: [...applied, ...results] };
    }
    if (results.length === 0) return { results: applied };
    applied.push(...results);
  }
};

/** True when every known migration has been applied (readiness checks). */
export const isSchemaCurrent = async <DB>(db: Kysely<DB>): Promise<boolean> => {
  const applied = await schemaMigrator(db).getMigrations();
  return applied.every((migration) => migration.executedAt !== undefined);
};

/** Migrates and throws on failure: for start-up paths that cannot go on without a schema. */
export const migrateOrThrow = async <DB>(db: Kysely<DB>, policy: MigrationLockPolicy): Promise<void> => {
  const { error } = await migrateToLatest(db, policy);
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
};

/**
 * Everything a fresh database needs before the api and the worker run: our
 * schema, then graphile-worker's (the api adds jobs with SQL inside its own
 * transactions, so the queue's schema must exist before the first request).
 * `policy` bounds the lock waits of our migrations and of graphile-worker's
 * (`migrateWorkerSchema`). Throws the first failure.
 */
export const migrateAll = async <DB>(
  db: Kysely<DB>,
  connectionString: string,
  policy: MigrationLockPolicy,
): Promise<void> => {
  await migrateOrThrow(db, policy);
  const { error } = await migrateWorkerSchema(db, connectionString, policy);
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
};

/** graphile-worker's `runMigrations`, or a test's stand-in for it. */
export type WorkerMigrationRunner = (options: RunnerOptions) => Promise<void>;

/**
 * graphile-worker's pending migrations, under the same lock policy as ours
 * (docs/decisions/0028). graphile-worker 0.18's `runMigrations`
 * takes no advisory lock: it runs each pending migration in a transaction of
 * its own, whose first statement inserts the migration's row into
 * `graphile_worker.migrations` (a concurrent migrator's uncommitted row makes
 * it wait there), and throws the first error. It is given a pool of one
 * connection (`pgPool`, which it leaves open) whose session starts with
 * `lock_timeout`, so every statement it runs, its migrations' included, waits
 * at most `policy.lockTimeoutMs` for a lock. A 55P03 is retried, or reported
 * when no retries are left, by the rule of our own migrations
 * (`withLockRetries`); a retry goes on from the first migration not yet
 * committed. Any other error is returned as a `MigrationFailed`. The
 * migration named is `graphile-worker 0000NN`, the one after the last
 * recorded, and those recorded since the call began are named as applied
 * before it. Never throws: the error is returned.
 */
export const migrateWorkerSchema = async <DB>(
  db: Kysely<DB>,
  connectionString: string,
  policy: MigrationLockPolicy,
  run: WorkerMigrationRunner = runWorkerMigrations,
): Promise<{ readonly error?: unknown }> => {
  const pool = createPool({
    connectionString,
    max: 1,
    lockTimeoutMs: policy.lockTimeoutMs,
    driverTypeParsers: true,
    applicationName: "dc-worker-schema-migrate",
  });
  try {
    const before = await lastWorkerMigration(db);
    const locate = async (): Promise<MigrationPosition> => {
      const last = await lastWorkerMigration(db);
      if (last === undefined) return { migration: undefined, applied: [] };
      const applied = [];
      for (let id = (before ?? 0) + 1; id <= last; id++) applied.push(workerMigrationName(id));
      return { migration: workerMigrationName(last + 1), applied };
    };
    const { error } = await withLockRetries(
      db,
      policy,
      async (): Promise<{ readonly error?: unknown }> => {
        try {
          await run({ pgPool: pool, logger: silentWorkerLogger });
          return {};
        } catch (error) {
          return { error };
        }
      },
      locate,
    );
    if (error === undefined || error instanceof MigrationLockUnavailable) return { error };
    const { migration, applied } = await locate();
    return {
      error: new MigrationFailed({
        message: migrationFailedMessage(migration, applied, error),
        migration,
        applied,
        cause: error,
      }),
    };
  } finally {
    await pool.end();
  }
};

/** The last migration graphile-worker recorded (0 before its first), or undefined when that cannot be read. */
const lastWorkerMigration = async <DB>(db: Kysely<DB>): Promise<number | undefined> => {
  try {
    const { rows } = await sql<{ last: number | null }>`
      select max(id) as last from graphile_worker.migrations`.execute(db);
    return rows[0]?.last ?? 0;
  } catch {
    return undefined;
  }
};

/** How a graphile-worker migration is named in our messages: `graphile-worker 000019`. */
const workerMigrationName = (id: number): string => `graphile-worker ${String(id).padStart(6, "0")}`;

/** graphile-worker's migration chatter is not useful on every start. */
export const silentWorkerLogger = new Logger(() => () => {});
