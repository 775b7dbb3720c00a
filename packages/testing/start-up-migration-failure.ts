/**
 * For the tests of what a failed migration does to a process at start-up
 * (docs/decisions/0028): a database whose next migration cannot
 * get its lock, and a process run to its end.
 */
import { spawn } from "node:child_process";
import { type Kysely, sql } from "kysely";
import { expect } from "vitest";
import { createDatabase, type Database, schemaMigrator } from "@dc/db";
import { holdTransaction } from "./held-transaction.ts";

/** What `blockNextMigration` makes the migrator say when it gives up after one wait of 100 ms. */
export const BLOCKED_MIGRATION_MESSAGE =
  "migration 0021-reference-indexes could not get a table lock within 100 ms in 1 attempt;";

/**
 * Takes the database back to 0020 and holds, in a session of its own, an
 * uncommitted write on `payments`: 0021's index there needs a SHARE lock.
 * `release` commits it and closes the session.
 */
export const blockNextMigration = async (
  db: Kysely<Database>,
  url: string,
): Promise<{ readonly release: () => Promise<void> }> => {
  const { error } = await schemaMigrator(db).migrateTo("0020-tenant-keys");
  if (error !== undefined) throw error;
  const blocker = createDatabase({ connectionString: url, max: 1, applicationName: "test-blocker" });
  const held = await holdTransaction(blocker, (trx) => sql`delete from payments where false`.execute(trx));
  return {
    release: async () => {
      await held.release();
      await blocker.destroy();
    },
  };
};

export interface FinishedProcess {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `node entry ...args` with this process's environment less vitest's, the
 * database and migration variables, plus `env`, to its end. Resolves on
 * `close`: once every process holding the child's stdout and stderr has
 * ended (`pnpm dev`'s database host inherits them).
 */
export const runToEnd = (
  entry: string,
  env: Record<string, string>,
  args: ReadonlyArray<string> = [],
): Promise<FinishedProcess> => {
  const own = ["DATABASE_URL", "NODE_ENV", "LOG_LEVEL", "PORT", "EMBEDDED_PG_PORT", "WORKER_METRICS_PORT"];
  const inherited: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || own.includes(name) || name.startsWith("VITEST") || name.startsWith("MIGRATION_LOCK_"))
      continue;
    inherited[name] = value;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], {
      env: { ...inherited, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
};

/** True when `text` holds a stack frame, on a line of its own or inside a JSON string (`\n    at f (file:1:2)`). */
export const hasStackFrame = (text: string): boolean =>
  /(^|\\n)\s*at \S.*:\d+:\d+\)?$/m.test(text) || /\\n\s+at /.test(text);

/** The settings under which the migrator gives up on `blockNextMigration`'s database after one wait. */
export const blockedMigrationSettings = (url: string): Record<string, string> => ({
  DATABASE_URL: url,
  MIGRATION_LOCK_TIMEOUT_MS: "100",
  MIGRATION_LOCK_RETRIES: "0",
});

/**
 * Starts an app's `main.ts` in development on `blockNextMigration`'s
 * database and checks how it ends: exit code 1, nothing on stderr, and one
 * log line at error level or above, `fatal`, naming the migration, with the
 * migrator's message once and no stack frame.
 */
export const expectOneFatalMigrationLine = async (
  entry: string,
  url: string,
  service: "api" | "worker",
): Promise<void> => {
  const { code, stdout, stderr } = await runToEnd(entry, { ...blockedMigrationSettings(url), NODE_ENV: "development" });
  expect({ code, stderr }).toEqual({ code: 1, stderr: "" });
  const records = stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(records.filter((record) => Number(record["level"]) >= 50)).toEqual([
    expect.objectContaining({
      level: 60,
      service,
      msg: `${service} failed to start: migration failed`,
      migration: "0021-reference-indexes",
      reason: expect.stringMatching(new RegExp(`^${BLOCKED_MIGRATION_MESSAGE}`)),
    }),
  ]);
  expect(stdout.split(BLOCKED_MIGRATION_MESSAGE).length - 1).toBe(1);
  expect(hasStackFrame(stdout)).toBe(false);
};
