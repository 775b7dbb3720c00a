/**
 * A database that a newer release migrated holds a migration this code does
 * not know. Kysely's Migrator refuses it (`corrupted migrations`), so that an
 * older release started against it, a rolled-back deploy or a developer's
 * older branch, stops at the migrator instead of running against a schema it
 * was not written for. `migrateToLatest` steps with `migrateUp` and must keep
 * that refusal when nothing of its own is pending.
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { migrateOrThrow, migrateToLatest } from "../src/migrate.ts";
import { MigrationFailed } from "../src/migration-failures.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { db } = await useTestDatabase();

const NEWER = "9999-from-a-newer-release";
const policy = { lockTimeoutMs: 1_000, retries: 0 };

describe("migrateToLatest on a database a newer release migrated", () => {
  it("refuses it, naming the migration it does not know, as Kysely's Migrator does", async () => {
    await migrateOrThrow(db, policy);
    await sql`insert into kysely_migration (name, timestamp) values (${NEWER}, ${new Date().toISOString()})`.execute(
      db,
    );
    try {
      const { error, results } = await migrateToLatest(db, policy);
      expect(results ?? []).toEqual([]);
      expect(error).toBeInstanceOf(MigrationFailed);
      expect((error as MigrationFailed).message).toContain(`previously executed migration ${NEWER} is missing`);
      await expect(migrateOrThrow(db, policy)).rejects.toThrow(`previously executed migration ${NEWER} is missing`);
    } finally {
      await sql`delete from kysely_migration where name = ${NEWER}`.execute(db);
    }
  });
});
