/**
 * The database a benchmark runs on: a new `dc_bench_*` database on the
 * server `DATABASE_URL` names, or on an embedded PostgreSQL in a temporary
 * directory when it is unset; migrated (fully, unless the caller says how),
 * and dropped by `close`.
 */
import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import {
  createDatabase,
  type Database,
  DEFAULT_MIGRATION_LOCKS,
  migrateAll,
  serverOrEphemeralCluster,
  withDatabaseName,
} from "@dc/db";

export interface BenchDatabase {
  readonly url: string;
  readonly db: Kysely<Database>;
  /** Closes `db`, drops the database and stops the embedded server, if any. */
  readonly close: () => Promise<void>;
}

export interface BenchDatabaseOptions {
  readonly poolSize: number;
  /** Brings the new database's schema up (default `migrateAll`: every migration and graphile-worker's). */
  readonly migrate?: (db: Kysely<Database>, url: string) => Promise<void>;
}

export const openBenchDatabase = async (options: BenchDatabaseOptions): Promise<BenchDatabase> => {
  const handle = await serverOrEphemeralCluster("dc-bench-pg");
  const name = `dc_bench_${randomBytes(6).toString("hex")}`;
  const admin = createDatabase({ connectionString: handle.url, max: 1 });
  await sql`create database ${sql.id(name)}`.execute(admin);
  const url = withDatabaseName(handle.url, name);
  const db: Kysely<Database> = createDatabase({ connectionString: url, max: options.poolSize });
  await (options.migrate ?? ((db, url) => migrateAll(db, url, DEFAULT_MIGRATION_LOCKS)))(db, url);
  return {
    url,
    db,
    close: async () => {
      await db.destroy();
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
      await admin.destroy();
      await handle.stop();
    },
  };
};
