/**
 * `migrateToLatest` applies pending migrations one transaction each
 * (docs/decisions/0028): a migration's locks are released when it
 * commits, not when the last pending one does, and a later migration that
 * fails or cannot get its locks leaves the earlier ones applied. From 0019,
 * 0020 (tenant keys: ACCESS EXCLUSIVE on the tenant tables, `debts` among
 * them) and 0021 (indexes: SHARE on `oauth_refresh_tokens` among others) are
 * pending, with the migrations after them; 0020 does not touch
 * `oauth_refresh_tokens`.
 */
import { type Kysely, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../src/connection.ts";
import { migrateToLatest, schemaMigrator } from "../src/migrate.ts";
import { MigrationFailed } from "../src/migration-failures.ts";
import { type MigrationRetry } from "../src/migration-locks.ts";
import type { Database } from "../src/schema.ts";
import { holdTransaction } from "../../testing/held-transaction.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { db, url } = await useTestDatabase();

const appliedMigrations = async (observer: Kysely<Database>): Promise<ReadonlyArray<string>> => {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(observer);
  return rows.map(({ name }) => name);
};

/** The public schema as the catalog describes it: relations, columns, constraints, indexes, triggers, functions. */
const schemaDescription = async (): Promise<ReadonlyArray<string>> => {
  const { rows } = await sql<{ line: string }>`
    select 'relation ' || c.relname || ' ' || c.relkind::text as line
    from pg_class c where c.relnamespace = 'public'::regnamespace
    union all
    select 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
      || case when a.attnotnull then ' not null' else '' end
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    where c.relnamespace = 'public'::regnamespace and a.attnum > 0 and not a.attisdropped
    union all
    select 'constraint ' || c.relname || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid)
    from pg_constraint k join pg_class c on c.oid = k.conrelid
    where k.connamespace = 'public'::regnamespace
    union all
    select 'index ' || pg_get_indexdef(x.indexrelid)
    from pg_index x join pg_class c on c.oid = x.indrelid where c.relnamespace = 'public'::regnamespace
    union all
    select 'trigger ' || pg_get_triggerdef(t.oid)
    from pg_trigger t join pg_class c on c.oid = t.tgrelid
    where c.relnamespace = 'public'::regnamespace and not t.tgisinternal
    union all
    select 'function ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc)
    from pg_proc p where p.pronamespace = 'public'::regnamespace
    order by 1`.execute(db);
  return rows.map(({ line }) => line);
};

/** Resolves once some session waits for a lock on `table`, or once `stop()` is true. */
const waitingOn = async (observer: Kysely<Database>, table: string, stop: () => boolean): Promise<void> => {
  while (!stop()) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
      where c.relname = ${table} and not l.granted`.execute(observer);
    if ((rows[0]?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

const session = (name: string): Kysely<Database> =>
  createDatabase({ connectionString: url, max: 1, applicationName: name });

describe("migrateToLatest over two pending migrations", () => {
  it(
    "commits the first before the second waits for its locks, and retries only the second",
    { timeout: 30_000 },
    async () => {
      expect((await schemaMigrator(db).migrateTo("0019-idempotency-keys")).error).toBeUndefined();
      const migrator = session("test-migrator");
      const blocker = session("test-blocker");
      const third = session("test-third");
      try {
        // A lock 0021 needs (SHARE, for its index on oauth_refresh_tokens) and 0020 does not.
        const held = await holdTransaction(blocker, (trx) =>
          sql`delete from oauth_refresh_tokens where false`.execute(trx),
        );
        const retries: MigrationRetry[] = [];
        let observed: () => void = () => {};
        const observations = new Promise<void>((resolve) => (observed = resolve));
        let paused: () => void = () => {};
        let hasPaused = false;
        const pausing = new Promise<void>((resolve) => (paused = resolve)).then(() => (hasPaused = true));
        const migration = migrateToLatest(migrator, {
          lockTimeoutMs: 1_000,
          retries: 5,
          onRetry: (retry) => retries.push(retry),
          // After the first attempt at 0021 ran out of time, once the test has looked: the blocker commits.
          pause: async () => {
            paused();
            await observations;
            await held.release();
          },
        });
        const seenWhileWaiting: { applied: ReadonlyArray<string>; debtsLocked: string }[] = [];
        try {
          await Promise.race([waitingOn(db, "oauth_refresh_tokens", () => hasPaused), pausing]);
          // 0020 is committed and its ACCESS EXCLUSIVE on debts released: a third session gets a lock that
          // conflicts with it at once (NOWAIT fails with 55P03 when it cannot).
          const debtsLocked = await third
            .transaction()
            .execute(async (trx) => {
              await sql`lock table debts in share mode nowait`.execute(trx);
              return "locked";
            })
            .catch((error: unknown) => `not locked: ${(error as Error).message}`);
          seenWhileWaiting.push({ applied: (await appliedMigrations(third)).slice(-2), debtsLocked });
        } finally {
          observed();
        }
        const { error, results } = await migration.finally(() => held.release());
        expect(seenWhileWaiting).toEqual([
          { applied: ["0019-idempotency-keys", "0020-tenant-keys"], debtsLocked: "locked" },
        ]);
        expect(error).toBeUndefined();
        expect(results).toEqual([
          { migrationName: "0020-tenant-keys", direction: "Up", status: "Success" },
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
        // Only 0021 was retried: 0020 ran once, and stayed applied.
        expect(retries).toEqual([
          { attempt: 1, retries: 5, migration: "0021-reference-indexes", lockTimeoutMs: 1_000, pauseMs: 1_000 },
        ]);
        expect((await appliedMigrations(db)).slice(-11)).toEqual([
          "0020-tenant-keys",
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
      } finally {
        await Promise.all([migrator.destroy(), blocker.destroy(), third.destroy()]);
      }
    },
  );

  it("leaves the first applied, and the schema exactly at it, when the second fails", async () => {
    expect((await schemaMigrator(db).migrateTo("0020-tenant-keys")).error).toBeUndefined();
    // 0021 creates an index named oauth_grants_company_idx; a table of that name makes it fail (42P07).
    await sql`create table oauth_grants_company_idx (x int)`.execute(db);
    try {
      const atFirst = await schemaDescription();
      expect((await schemaMigrator(db).migrateTo("0019-idempotency-keys")).error).toBeUndefined();
      expect(await schemaDescription()).not.toEqual(atFirst);

      const { error, results } = await migrateToLatest(db, { lockTimeoutMs: 1_000, retries: 2 });
      expect((await appliedMigrations(db)).at(-1)).toBe("0020-tenant-keys");
      expect(await schemaDescription()).toEqual(atFirst);
      expect(results).toEqual([
        { migrationName: "0020-tenant-keys", direction: "Up", status: "Success" },
        { migrationName: "0021-reference-indexes", direction: "Up", status: "Error" },
      ]);
      expect(error).toBeInstanceOf(MigrationFailed);
      const failure = error as MigrationFailed;
      expect(failure.migration).toBe("0021-reference-indexes");
      expect(failure.applied).toEqual(["0020-tenant-keys"]);
      expect((failure.cause as { code?: string }).code).toBe("42P07");
      expect(failure.message).toMatch(/^migration 0021-reference-indexes failed: relation "oauth_grants_company_idx"/);
      expect(failure.message).toContain("0020-tenant-keys was applied before it and stays applied");
    } finally {
      await sql`drop table if exists oauth_grants_company_idx`.execute(db);
      expect((await migrateToLatest(db, { lockTimeoutMs: 1_000, retries: 0 })).error).toBeUndefined();
    }
  });
});
