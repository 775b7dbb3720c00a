/**
 * A migration that declares `withoutTransaction` (for `create index
 * concurrently`) runs outside a transaction, its lock waits still bounded,
 * and retried by the same rule (docs/decisions/0028). A concurrent
 * build waits, after taking its table lock, for every transaction that
 * could still see the table; a lock timeout there leaves the index INVALID,
 * and `createIndexConcurrently` drops and builds it again on the retry.
 */
import { type Kysely, sql } from "kysely";
import { type Migration, Migrator } from "kysely/migration";
import { describe, expect, it } from "vitest";
import { createIndexConcurrently } from "../src/concurrent-index.ts";
import { createDatabase } from "../src/connection.ts";
import { migrateToLatest, migrations } from "../src/migrate.ts";
import { type MigrationRetry, type OwnMigration, withLockTimeout } from "../src/migration-locks.ts";
import type { Database } from "../src/schema.ts";
import { holdTransaction } from "../src/testing/held-transaction.ts";
import { useTestDatabase } from "../src/testing/index.ts";

const { db, url } = await useTestDatabase();

const INDEX = "payments_test_concurrent_idx";

const concurrentIndex: OwnMigration = {
  withoutTransaction: true,
  up: (db) => createIndexConcurrently(db, { name: INDEX, table: "payments", columns: ["company_id", "created_at"] }),
  down: (db) => sql`drop index concurrently if exists ${sql.id(INDEX)}`.execute(db).then(() => {}),
};

const withTestMigration = (name: string, migration: Migration): Record<string, Migration> => ({
  ...migrations,
  [name]: migration,
});

const indexState = async (observer: Kysely<Database>): Promise<string> => {
  const { rows } = await sql<{ valid: boolean }>`
    select x.indisvalid as valid from pg_index x join pg_class i on i.oid = x.indexrelid
    where i.relname = ${INDEX}`.execute(observer);
  return rows[0] === undefined ? "absent" : rows[0].valid ? "valid" : "invalid";
};

/** Resolves once the migrator's session waits for a lock (the build, for the blocker's transaction to end), or `stop()`. */
const migratorWaiting = async (observer: Kysely<Database>, stop: () => boolean): Promise<void> => {
  while (!stop()) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
      where application_name = 'test-migrator' and wait_event_type = 'Lock'`.execute(observer);
    if ((rows[0]?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

const session = (name: string): Kysely<Database> =>
  createDatabase({ connectionString: url, max: 1, applicationName: name });

describe("a migration that runs outside a transaction", () => {
  it(
    "builds its index concurrently, rebuilding the invalid one a lock timeout left, while writes go on",
    { timeout: 30_000 },
    async () => {
      const migrator = session("test-migrator");
      const blocker = session("test-blocker");
      const third = session("test-third");
      try {
        // An open transaction that has written to payments: the concurrent build waits for it to end.
        const held = await holdTransaction(blocker, (trx) => sql`delete from payments where false`.execute(trx));
        const retries: MigrationRetry[] = [];
        const seenInPause: string[] = [];
        let settled = false;
        const migration = migrateToLatest(
          migrator,
          {
            lockTimeoutMs: 300,
            retries: 3,
            onRetry: (retry) => retries.push(retry),
            pause: async () => {
              seenInPause.push(await indexState(third));
              await held.release();
            },
          },
          withTestMigration("9001-test-concurrent-index", concurrentIndex),
        ).finally(() => (settled = true));
        let writeDuringBuild = "not seen: the migrator never waited";
        try {
          await migratorWaiting(db, () => settled);
          // The build holds SHARE UPDATE EXCLUSIVE on payments, which a write does not conflict with.
          if (!settled)
            writeDuringBuild = await sql`delete from payments where false`.execute(third).then(() => "completed");
        } catch (error) {
          await held.release();
          throw error;
        }
        // The blocker is released in the pause, after the first attempt timed out (or here, if it never did).
        const { error, results } = await migration.finally(() => held.release());
        expect(error).toBeUndefined();
        expect(writeDuringBuild).toBe("completed");
        expect(results).toEqual([{ migrationName: "9001-test-concurrent-index", direction: "Up", status: "Success" }]);
        expect(retries.map(({ attempt, migration }) => ({ attempt, migration }))).toEqual([
          { attempt: 1, migration: "9001-test-concurrent-index" },
        ]);
        expect(seenInPause).toEqual(["invalid"]);
        expect(await indexState(db)).toBe("valid");
        // The session-level lock_timeout the migration ran with is not left on the pool's connection.
        expect((await sql<{ lock_timeout: string }>`show lock_timeout`.execute(migrator)).rows[0]?.lock_timeout).toBe(
          "0",
        );
      } finally {
        await sql`drop index if exists ${sql.id(INDEX)}`.execute(db);
        await sql`delete from kysely_migration where name = '9001-test-concurrent-index'`.execute(db);
        await Promise.all([migrator.destroy(), blocker.destroy(), third.destroy()]);
      }
    },
  );

  it("refuses to run a transactional migration outside a transaction", async () => {
    // What migrateToLatest would do if another migrator applied the migration it looked at, between
    // its look and its step: the next one, transactional, handed a connection without a transaction.
    const ran: string[] = [];
    const migrator = new Migrator({
      db: db as unknown as Kysely<unknown>,
      provider: {
        getMigrations: async () =>
          withLockTimeout(
            withTestMigration("9002-test-transactional", {
              up: async (db) => {
                ran.push("up");
                await sql`select 1`.execute(db);
              },
            }),
            1_000,
          ),
      },
    });
    const { error, results } = await migrator.migrateUp({ disableTransactions: true });
    expect(ran).toEqual([]);
    expect(results).toEqual([{ migrationName: "9002-test-transactional", direction: "Up", status: "Error" }]);
    expect(String((error as Error).message)).toBe(
      "migration 9002-test-transactional must run in a transaction; it was not applied, run the migrator again",
    );
  });
});
