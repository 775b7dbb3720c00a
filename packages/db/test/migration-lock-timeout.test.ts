/**
 * The migrator against a transaction that holds a lock it needs
 * (docs/decisions/0028): 0021 builds an index on `payments`, which needs a
 * SHARE lock, and a session with an uncommitted write there holds ROW
 * EXCLUSIVE. PostgreSQL queues lock requests in order, so while the
 * migrator waits, a later write on `payments` waits behind it even though
 * it does not conflict with the blocker.
 */
import { Either } from "effect";
import { type Kysely, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../src/connection.ts";
import { migrateToLatest, schemaMigrator } from "../src/migrate.ts";
import { MigrationLockUnavailable } from "../src/migration-failures.ts";
import { type MigrationRetry } from "../src/migration-locks.ts";
import { decodeVariables } from "@dc/runtime";
import { migrationLocksOf, MigrationVariables } from "../src/migration-settings.ts";
import type { Database } from "../src/schema.ts";
import { holdTransaction } from "../../testing/held-transaction.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { db, url } = await useTestDatabase();

/** The lock settings as a deploy would give them, shortened. */
const locks = (env: Record<string, string>) => {
  const decoded = decodeVariables(MigrationVariables, env);
  if (Either.isLeft(decoded)) throw new Error(decoded.left.join("; "));
  return migrationLocksOf(decoded.right);
};

const appliedMigrations = async (): Promise<ReadonlyArray<string>> => {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map(({ name }) => name);
};

const referenceIndexes = async (): Promise<ReadonlyArray<string>> => {
  const { rows } = await sql<{ index: string }>`
    select relname as index from pg_class
    where relname in ('payments_integration_client_idx', 'snapshots_integration_client_idx', 'debts_timeline_idx')
    order by 1`.execute(db);
  return rows.map(({ index }) => index);
};

/** Resolves once some session waits for a lock on `payments`: the migrator, queued behind the blocker. */
const migratorQueued = async (observer: Kysely<Database>): Promise<void> => {
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
      where c.relname = 'payments' and not l.granted`.execute(observer);
    if ((rows[0]?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** "completed" when `work` settles within `boundMs`, "still waiting" otherwise: a generous bound, not a timing. */
const within = (work: Promise<unknown>, boundMs: number): Promise<"completed" | "still waiting"> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work.then(() => "completed" as const),
    new Promise<"still waiting">((resolve) => (timer = setTimeout(() => resolve("still waiting"), boundMs))),
  ]).finally(() => clearTimeout(timer));
};

/** Connections of their own: the migrator's, the blocker's, a third session's. */
const withSessions = async <A>(
  use: (sessions: { migrator: Kysely<Database>; blocker: Kysely<Database>; third: Kysely<Database> }) => Promise<A>,
): Promise<A> => {
  const migrator = createDatabase({ connectionString: url, max: 1, applicationName: "test-migrator" });
  const blocker = createDatabase({ connectionString: url, max: 1, applicationName: "test-blocker" });
  const third = createDatabase({ connectionString: url, max: 1, applicationName: "test-third" });
  try {
    return await use({ migrator, blocker, third });
  } finally {
    await Promise.all([migrator.destroy(), blocker.destroy(), third.destroy()]);
  }
};

describe("the migrator behind a transaction holding a lock it needs", () => {
  // Without a lock timeout the migrator waits for good and the third session's
  // write waits behind it: the 10 s bound fails the first test, the 20 s
  // timeout the second.
  it(
    "gives up after its retries with nothing applied, and never holds the queue for long",
    { timeout: 20_000 },
    async () => {
      expect((await schemaMigrator(db).migrateTo("0020-tenant-keys")).error).toBeUndefined();
      await withSessions(async ({ migrator, blocker, third }) => {
        let blockerPid = 0;
        const held = await holdTransaction(blocker, async (trx) => {
          blockerPid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
          await sql`delete from payments where false`.execute(trx);
        });
        const retries: MigrationRetry[] = [];
        let migration: ReturnType<typeof migrateToLatest> | undefined;
        try {
          migration = migrateToLatest(migrator, {
            ...locks({ MIGRATION_LOCK_TIMEOUT_MS: "100", MIGRATION_LOCK_RETRIES: "2" }),
            onRetry: (retry) => retries.push(retry),
          });
          await migratorQueued(db);
          // A write, since a read does not conflict with the SHARE lock the migrator waits for.
          expect(await within(sql`delete from payments where false`.execute(third), 10_000)).toBe("completed");

          const { error } = await migration;
          expect(error).toBeInstanceOf(MigrationLockUnavailable);
          const failure = error as MigrationLockUnavailable;
          expect(failure.migration).toBe("0021-reference-indexes");
          expect(failure.attempts).toBe(3);
          expect((failure.cause as { code?: string }).code).toBe("55P03");
          expect(failure.holders.map(({ pid, locks }) => ({ pid, locks }))).toEqual([
            { pid: blockerPid, locks: ["RowExclusiveLock on public.payments"] },
          ]);
          expect(failure.message).toContain(
            "migration 0021-reference-indexes could not get a table lock within 100 ms",
          );
          expect(failure.message).toContain(`pid ${blockerPid} (idle in transaction`);
          expect(failure.message).toContain("RowExclusiveLock on public.payments");
          expect(failure.message).toContain("pg_stat_activity and pg_locks");
          expect(retries).toEqual([
            { attempt: 1, retries: 2, migration: "0021-reference-indexes", lockTimeoutMs: 100, pauseMs: 100 },
            { attempt: 2, retries: 2, migration: "0021-reference-indexes", lockTimeoutMs: 100, pauseMs: 100 },
          ]);
          expect((await appliedMigrations()).at(-1)).toBe("0020-tenant-keys");
          expect(await referenceIndexes()).toEqual([]);
        } finally {
          await held.release();
          await migration;
        }
      });
    },
  );

  it("succeeds on a later attempt once the blocker commits", { timeout: 20_000 }, async () => {
    expect((await schemaMigrator(db).migrateTo("0020-tenant-keys")).error).toBeUndefined();
    await withSessions(async ({ migrator, blocker }) => {
      const held = await holdTransaction(blocker, (trx) => sql`delete from payments where false`.execute(trx));
      const retries: MigrationRetry[] = [];
      const { error, results } = await migrateToLatest(migrator, {
        ...locks({ MIGRATION_LOCK_TIMEOUT_MS: "100", MIGRATION_LOCK_RETRIES: "5" }),
        onRetry: (retry) => retries.push(retry),
        // The blocker commits between the first attempt and the second.
        pause: () => held.release(),
      });
      expect(error).toBeUndefined();
      expect(results).toEqual([
        { migrationName: "0021-reference-indexes", direction: "Up", status: "Success" },
        { migrationName: "0022-drop-queue-wakeup-trigger", direction: "Up", status: "Success" },
        { migrationName: "0023-foreign-keys", direction: "Up", status: "Success" },
        { migrationName: "0024-validate-foreign-keys", direction: "Up", status: "Success" },
        { migrationName: "0025-undeclared-snapshot-row-count", direction: "Up", status: "Success" },
        { migrationName: "0026-collection-engine", direction: "Up", status: "Success" },
        { migrationName: "0030-list-keyset-indexes", direction: "Up", status: "Success" },
        { migrationName: "0035-sandbox-message-keys", direction: "Up", status: "Success" },
        { migrationName: "0036-provider-acknowledgements", direction: "Up", status: "Success" },
        { migrationName: "0039-worker-leases", direction: "Up", status: "Success" },
      ]);
      expect(retries.map(({ attempt }) => attempt)).toEqual([1]);
      expect((await appliedMigrations()).slice(-10)).toEqual([
        "0021-reference-indexes",
        "0022-drop-queue-wakeup-trigger",
        "0023-foreign-keys",
        "0024-validate-foreign-keys",
        "0025-undeclared-snapshot-row-count",
        "0026-collection-engine",
        "0030-list-keyset-indexes",
        "0035-sandbox-message-keys",
        "0036-provider-acknowledgements",
        "0039-worker-leases",
      ]);
      expect(await referenceIndexes()).toEqual([
        "debts_timeline_idx",
        "payments_integration_client_idx",
        "snapshots_integration_client_idx",
      ]);
    });
  });

  it("reads its settings with deploy defaults, refusing values out of range", () => {
    expect(locks({})).toEqual({ lockTimeoutMs: 3_000, retries: 10 });
    expect(locks({ MIGRATION_LOCK_TIMEOUT_MS: "250", MIGRATION_LOCK_RETRIES: "0" })).toEqual({
      lockTimeoutMs: 250,
      retries: 0,
    });
    const refused = decodeVariables(MigrationVariables, {
      MIGRATION_LOCK_TIMEOUT_MS: "0",
      MIGRATION_LOCK_RETRIES: "-1",
    });
    expect(Either.isLeft(refused) && refused.left).toEqual(
      expect.arrayContaining([
        "MIGRATION_LOCK_TIMEOUT_MS: Expected a number between 100 and 600000, actual 0",
        "MIGRATION_LOCK_RETRIES: Expected a number between 0 and 1000, actual -1",
      ]),
    );
  });
});
