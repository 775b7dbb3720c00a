/**
 * Schema migrations with Kysely's Migrator. Migrations are listed in code (no
 * directory scan), so a bundled or type-stripped build finds them all.
 */
import { Logger, runMigrations as runWorkerMigrations } from "graphile-worker";
import type { Kysely } from "kysely";
import { type Migration, type MigrationResultSet, Migrator } from "kysely/migration";
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
import {
  isLockNotAvailable,
  lockHolders,
  lockUnavailableMessage,
  MigrationLockUnavailable,
  type MigrationLockPolicy,
  sleep,
  withLockTimeout,
} from "./migration-locks.ts";
import { installQueueWakeup } from "./worker-queue-wakeup.ts";

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
};

/**
 * Kysely's migrator over this project's migrations, for stopping at a given
 * one (`migrateTo("0019-idempotency-keys")`) or stepping (`migrateUp`,
 * `migrateDown`), as the migration benchmark does. Each call runs every
 * migration it applies in one transaction: `migrateToLatest` over several
 * pending migrations holds the first one's locks until the last one commits.
 * With `lockTimeoutMs`, that transaction gives up a lock wait after that long
 * (SQLSTATE 55P03, the result's `error`); without it, it waits for good.
 */
export const schemaMigrator = <DB>(db: Kysely<DB>, options: { readonly lockTimeoutMs?: number } = {}): Migrator => {
  const provided =
    options.lockTimeoutMs === undefined ? migrations : withLockTimeout(migrations, options.lockTimeoutMs);
  return new Migrator({ db: db as unknown as Kysely<unknown>, provider: { getMigrations: async () => provided } });
};

/**
 * Applies every pending migration, each lock wait bounded by
 * `policy.lockTimeoutMs`; a wait that runs out rolls the whole transaction
 * back and is retried after a pause as long, `policy.retries` times
 * (migration-locks.ts). The result's `error` is set on failure: a
 * `MigrationLockUnavailable` naming the lock holders when the retries ran
 * out, the migrator's own error otherwise.
 */
export const migrateToLatest = async <DB>(db: Kysely<DB>, policy: MigrationLockPolicy): Promise<MigrationResultSet> => {
  const migrator = schemaMigrator(db, { lockTimeoutMs: policy.lockTimeoutMs });
  for (let attempt = 1; ; attempt++) {
    const result = await migrator.migrateToLatest();
    if (!isLockNotAvailable(result.error)) return result;
    const migration = result.results?.find(({ status }) => status === "Error")?.migrationName;
    if (attempt > policy.retries) {
      const holders = await lockHolders(db, policy.lockTimeoutMs);
      const failure = { migration, attempts: attempt, lockTimeoutMs: policy.lockTimeoutMs, holders };
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
    policy.onRetry?.({ attempt, retries: policy.retries, migration, lockTimeoutMs: policy.lockTimeoutMs, pauseMs });
    await (policy.pause ?? sleep)(pauseMs);
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
 * transactions, so the queue's schema must exist before the first request),
 * then the trigger that wakes workers when a named queue frees
 * (worker-queue-wakeup.ts). `policy` bounds our migrations' lock waits only
 * (graphile-worker's run on their own connection, as they always have).
 */
export const migrateAll = async <DB>(
  db: Kysely<DB>,
  connectionString: string,
  policy: MigrationLockPolicy,
): Promise<void> => {
  await migrateOrThrow(db, policy);
  await runWorkerMigrations({ connectionString, logger: silentWorkerLogger });
  await installQueueWakeup(db);
};

/** graphile-worker's migration chatter is not useful on every start. */
export const silentWorkerLogger = new Logger(() => () => {});
