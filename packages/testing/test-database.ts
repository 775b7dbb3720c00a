/**
 * One database per test file, cloned from the migrated template (fast: a file
 * copy inside PostgreSQL), dropped when the file's tests end.
 */
import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { afterAll, inject } from "vitest";
import { createDatabase, type Database, withDatabaseName } from "@dc/db";
import "./provided-context.ts";

export interface TestDatabase {
  readonly db: Kysely<Database>;
  readonly url: string;
}

/** Creates this file's database now and registers its removal after the file's tests. */
export const useTestDatabase = async (): Promise<TestDatabase> => {
  const { serverUrl, template } = inject("testDatabase");
  const name = `dc_test_${randomBytes(6).toString("hex")}`;
  const admin = createDatabase({ connectionString: serverUrl, max: 1 });
  // Cloning needs the template to have no other connection; retry briefly when files clone at once.
  for (let attempt = 0; ; attempt++) {
    try {
      await sql`create database ${sql.id(name)} template ${sql.id(template)}`.execute(admin);
      break;
    } catch (error) {
      if (attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
    }
  }
  const url = withDatabaseName(serverUrl, name);
  const db = createDatabase({ connectionString: url, max: 10 });
  afterAll(async () => {
    await db.destroy();
    // A pool's end resolves before its connections have closed. A drop that forced one still closing
    // would end it with 57P01, which its client (its pool gone) can only raise as an uncaught error.
    await connectionsClosed(admin, name);
    await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
    await admin.destroy();
  });
  return { db, url };
};

/** Waits, at most `boundMs`, until no session is connected to database `name` (the drop then forces what is left). */
const connectionsClosed = async (admin: Kysely<Database>, name: string, boundMs = 3_000): Promise<void> => {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity where datname = ${name}`.execute(admin);
    if (rows[0]?.n === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};
