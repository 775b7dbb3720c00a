/**
 * graphile-worker's migrations under the migrator's lock policy
 * (docs/decisions/0028). The database is made to look as an older
 * graphile-worker left it: its last two migrations, 000019 (a marker,
 * `select 1`) and 000020 (`create or replace function` of `add_job` and
 * `add_jobs`), are taken off `graphile_worker.migrations`, so they are
 * pending and can run again. The blocker is what another process migrating
 * graphile-worker's schema at the same moment holds: an uncommitted insert of
 * migration 19's row, graphile-worker's first statement in each migration, so
 * ours waits for that row's transaction.
 */
import { type Kysely, sql } from "kysely";
import type pg from "pg";
import { beforeEach, describe, expect, it } from "vitest";
import { createDatabase } from "../src/connection.ts";
import { migrateWorkerSchema } from "../src/migrate.ts";
import { MigrationFailed, MigrationLockUnavailable } from "../src/migration-failures.ts";
import { type MigrationRetry } from "../src/migration-locks.ts";
import type { Database } from "../src/schema.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { db, url } = await useTestDatabase();

beforeEach(async () => {
  await sql`delete from graphile_worker.migrations where id >= 19`.execute(db);
});

const workerMigrations = async (): Promise<ReadonlyArray<number>> => {
  const { rows } = await sql<{ id: number }>`select id from graphile_worker.migrations order by id`.execute(db);
  return rows.map(({ id }) => id);
};

/** "completed" when `work` settles within `boundMs`, "still waiting" otherwise: a generous bound, not a timing. */
const within = <A>(work: Promise<A>, boundMs: number): Promise<A | "still waiting"> => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<"still waiting">((resolve) => (timer = setTimeout(() => resolve("still waiting"), boundMs))),
  ]).finally(() => clearTimeout(timer));
};

/** A session inserting migration 19's row and keeping its transaction open until `release` (then it commits). */
const concurrentWorkerMigration = async (blocker: Kysely<Database>) => {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let inserted: (pid: number) => void = () => {};
  const pid = new Promise<number>((resolve) => (inserted = resolve));
  const transaction = blocker.transaction().execute(async (trx) => {
    await sql`insert into graphile_worker.migrations (id, breaking) values (19, true)`.execute(trx);
    inserted((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid);
    await released;
  });
  return {
    pid: await Promise.race([pid, transaction.then(() => 0)]),
    release: () => {
      release();
      return transaction;
    },
  };
};

describe("graphile-worker's migrations behind a transaction holding what they need", () => {
  it("run on connections that carry the lock timeout", async () => {
    let setting: string | undefined;
    const { error } = await migrateWorkerSchema(db, url, { lockTimeoutMs: 250, retries: 0 }, async (options) => {
      const { rows } = await (options.pgPool as pg.Pool).query<{ lock_timeout: string }>("show lock_timeout");
      setting = rows[0]?.lock_timeout;
    });
    expect(error).toBeUndefined();
    expect(setting).toBe("250ms");
  });

  it("report another failure as a MigrationFailed naming the migration, not retried", async () => {
    let attempts = 0;
    const { error } = await migrateWorkerSchema(db, url, { lockTimeoutMs: 100, retries: 3 }, async () => {
      attempts++;
      throw Object.assign(new Error("permission denied for schema graphile_worker"), { code: "42501" });
    });
    expect(attempts).toBe(1);
    expect(error).toBeInstanceOf(MigrationFailed);
    expect((error as MigrationFailed).migration).toBe("graphile-worker 000019");
    expect((error as MigrationFailed).message).toBe(
      "migration graphile-worker 000019 failed: permission denied for schema graphile_worker; nothing was applied",
    );
  });

  it("give up after the retries, naming graphile-worker's migration and the blocker", { timeout: 20_000 }, async () => {
    const blocker = createDatabase({ connectionString: url, max: 1, applicationName: "test-blocker" });
    try {
      const held = await concurrentWorkerMigration(blocker);
      const retries: MigrationRetry[] = [];
      try {
        const outcome = await within(
          migrateWorkerSchema(db, url, {
            lockTimeoutMs: 100,
            retries: 2,
            onRetry: (retry) => retries.push(retry),
          }),
          10_000,
        );
        expect(outcome).not.toBe("still waiting");
        const { error } = outcome as { error?: unknown };
        expect(error).toBeInstanceOf(MigrationLockUnavailable);
        const failure = error as MigrationLockUnavailable;
        expect(failure.migration).toBe("graphile-worker 000019");
        expect(failure.attempts).toBe(3);
        expect((failure.cause as { code?: string }).code).toBe("55P03");
        expect(failure.holders.map(({ pid, locks }) => ({ pid, locks }))).toEqual([
          { pid: held.pid, locks: ["RowExclusiveLock on graphile_worker.migrations"] },
        ]);
        expect(failure.message).toContain(
          "migration graphile-worker 000019 could not get a table lock within 100 ms in 3 attempts; nothing was applied.",
        );
        expect(retries.map(({ attempt, migration }) => ({ attempt, migration }))).toEqual([
          { attempt: 1, migration: "graphile-worker 000019" },
          { attempt: 2, migration: "graphile-worker 000019" },
        ]);
        expect((await workerMigrations()).at(-1)).toBe(18);
      } finally {
        await held.release();
      }
      // The other migrator committed 19; 20 is left, and applies.
      expect(await migrateWorkerSchema(db, url, { lockTimeoutMs: 100, retries: 0 })).toEqual({});
      expect((await workerMigrations()).slice(-2)).toEqual([19, 20]);
    } finally {
      await blocker.destroy();
    }
  });

  it("apply on a later attempt once the blocker commits", { timeout: 20_000 }, async () => {
    const blocker = createDatabase({ connectionString: url, max: 1, applicationName: "test-blocker" });
    try {
      const held = await concurrentWorkerMigration(blocker);
      const retries: MigrationRetry[] = [];
      const outcome = await within(
        migrateWorkerSchema(db, url, {
          lockTimeoutMs: 100,
          retries: 5,
          onRetry: (retry) => retries.push(retry),
          pause: () => held.release(),
        }),
        10_000,
      ).finally(() => held.release());
      expect(outcome).toEqual({});
      expect(retries.map(({ attempt }) => attempt)).toEqual([1]);
      expect((await workerMigrations()).slice(-2)).toEqual([19, 20]);
    } finally {
      await blocker.destroy();
    }
  });
});
