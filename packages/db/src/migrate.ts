/**
 * Schema migrations with Kysely's Migrator. Migrations are listed in code (no
 * directory scan, Kysely's `MigrationProvider`), so a bundled or type-stripped
 * build finds them all.
 */
import { Logger, type RunnerOptions, runMigrations as runWorkerMigrations } from "graphile-worker";
import { type Kysely, sql } from "kysely";
import { type Migration, type MigrationResult, type MigrationResultSet, Migrator } from "kysely/migration";
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
import * as foreignKeys from "./migrations/0023-foreign-keys.ts";
import * as validateForeignKeys from "./migrations/0024-validate-foreign-keys.ts";
import * as undeclaredSnapshotRowCount from "./migrations/0025-undeclared-snapshot-row-count.ts";
import * as collectionEngine from "./migrations/0026-collection-engine.ts";
import * as enrollmentRuns from "./migrations/0027-enrollment-runs.ts";
import * as listKeysetIndexes from "./migrations/0028-list-keyset-indexes.ts";
import * as sandboxMessageKeys from "./migrations/0029-sandbox-message-keys.ts";
import * as providerAcknowledgements from "./migrations/0030-provider-acknowledgements.ts";
import * as timelineAuthoring from "./migrations/0031-timeline-authoring.ts";
import * as workerLeases from "./migrations/0032-worker-leases.ts";
import * as engineImpliedKeys from "./migrations/0040-engine-implied-keys.ts";
import * as providerEvents from "./migrations/0041-provider-events.ts";
import * as storedObjects from "./migrations/0042-stored-objects.ts";
import * as emailOutcomes from "./migrations/0043-email-outcomes.ts";
import * as debtorPage from "./migrations/0044-debtor-page.ts";
import * as reviewQueue from "./migrations/0045-review-queue.ts";
import * as debtorRequestAttachments from "./migrations/0046-debtor-request-attachments.ts";
import * as acknowledgedMessageIndex from "./migrations/0047-acknowledged-message-index.ts";
import { MigrationFailed, migrationFailedMessage, MigrationLockUnavailable } from "./migration-failures.ts";
import { type MigrationLockPolicy, type MigrationPosition, withLockRetries } from "./migration-locks.ts";

export const migrations: Readonly<Record<string, Migration>> = {
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
  "0023-foreign-keys": foreignKeys,
  "0024-validate-foreign-keys": validateForeignKeys,
  "0025-undeclared-snapshot-row-count": undeclaredSnapshotRowCount,
  "0026-collection-engine": collectionEngine,
  "0027-enrollment-runs": enrollmentRuns,
  "0028-list-keyset-indexes": listKeysetIndexes,
  "0029-sandbox-message-keys": sandboxMessageKeys,
  "0030-provider-acknowledgements": providerAcknowledgements,
  "0031-timeline-authoring": timelineAuthoring,
  "0032-worker-leases": workerLeases,
  "0040-engine-implied-keys": engineImpliedKeys,
  "0041-provider-events": providerEvents,
  "0042-stored-objects": storedObjects,
  "0043-email-outcomes": emailOutcomes,
  "0044-debtor-page": debtorPage,
  "0045-review-queue": reviewQueue,
  "0046-debtor-request-attachments": debtorRequestAttachments,
  "0047-acknowledged-message-index": acknowledgedMessageIndex,
};

/**
 * Kysely's migrator over this project's migrations, for stopping at a given
 * one (`migrateTo("0019-idempotency-keys")`) or stepping (`migrateUp`,
 * `migrateDown`), as the tests and the migration benchmark do. Each call runs
 * every migration it applies in one transaction; its lock waits are bounded
 * only by the session's `lock_timeout`. `migrateToLatest` below is the
 * deploy's path.
 */
export const schemaMigrator = <DB>(db: Kysely<DB>, provided: Readonly<Record<string, Migration>> = migrations): Migrator =>
  new Migrator({ db: db as unknown as Kysely<unknown>, provider: { getMigrations: async () => provided } });

/**
 * One `migrateUp` of Kysely's Migrator on one connection of `db` whose
 * session has `lock_timeout` set, put back when the step ends. Kysely takes
 * its advisory lock on that connection (with its own hour-long timeout, so
 * two migrators still wait for each other), applies the next pending
 * migration in a transaction and records it there, then releases the lock.
 * A lock wait of the migration that outlasts the timeout fails it with
 * SQLSTATE 55P03 (the result's `error`), and its transaction rolls back.
 */
const migrateUpOnce = <DB>(
  db: Kysely<DB>,
  provided: Readonly<Record<string, Migration>>,
  lockTimeoutMs: number,
): Promise<MigrationResultSet> =>
  db.connection().execute(async (connection) => {
    await sql`select set_config('lock_timeout', ${`${lockTimeoutMs}ms`}, false)`.execute(connection);
    try {
      return await schemaMigrator(connection, provided).migrateUp();
    } finally {
      await sql`reset lock_timeout`.execute(connection);
    }
  });

/**
 * Applies every pending migration with Kysely's Migrator, one transaction
 * each (docs/decisions/0028): `migrateUp` until it applies nothing (that last
 * call refuses a database holding a migration this code does not know), on a
 * connection whose `lock_timeout` is `policy.lockTimeoutMs`. So a migration's
 * locks last as long as that migration, each lock wait is bounded, and a
 * wait that runs out rolls back that migration only; the same migration is
 * tried again after a pause as long, `policy.retries` times
 * (migration-locks.ts, `withLockRetries`). Migrations committed before a
 * failure stay applied. The result's `results` list every migration applied
 * across the steps, then the failing one (status `Error`); its `error` is
 * then a `MigrationLockUnavailable` naming the lock holders when the retries
 * ran out, a `MigrationFailed` naming the migration otherwise, both listing
 * the migrations applied before it in this run.
 */
export const migrateToLatest = async <DB>(
  db: Kysely<DB>,
  policy: MigrationLockPolicy,
  provided: Readonly<Record<string, Migration>> = migrations,
): Promise<MigrationResultSet> => {
  const applied: MigrationResult[] = [];
  for (;;) {
    const names = applied.map(({ migrationName }) => migrationName);
    const step = await withLockRetries(
      db,
      policy,
      () => migrateUpOnce(db, provided, policy.lockTimeoutMs),
      (result) => ({ migration: result.results?.find(({ status }) => status === "Error")?.migrationName, applied: names }),
    );
    const results = step.results ?? [];
    if (step.error !== undefined) {
      const migration = results.find(({ status }) => status === "Error")?.migrationName;
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
 * (docs/decisions/0028, addendum). graphile-worker 0.18's `runMigrations`
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
