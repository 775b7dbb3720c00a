/**
 * `node src/main.ts` in development migrates before it starts; a migration
 * that fails there ends the process with one structured log line naming it
 * and exit code 1, with no stack and nothing on stderr (docs/operations.md,
 * Upgrades). The next migration cannot get its lock (`blockNextMigration`),
 * and with `MIGRATION_LOCK_TIMEOUT_MS=100 MIGRATION_LOCK_RETRIES=0` the
 * migrator gives up after one wait. Against DATABASE_URL: no embedded
 * cluster is started.
 */
import { join } from "node:path";
import {
  BLOCKED_MIGRATION_MESSAGE,
  blockNextMigration,
  hasStackFrame,
  runToEnd,
  useTestDatabase,
} from "@dc/db/testing";
import { afterAll, describe, expect, it } from "vitest";

const { db, url } = await useTestDatabase();
const blocker = await blockNextMigration(db, url);
afterAll(() => blocker.release());

describe("node src/main.ts when a migration cannot get its lock", () => {
  it("logs one fatal line naming the migration and exits 1", { timeout: 30_000 }, async () => {
    const { code, stdout, stderr } = await runToEnd(join(import.meta.dirname, "..", "src", "main.ts"), {
      DATABASE_URL: url,
      NODE_ENV: "development",
      MIGRATION_LOCK_TIMEOUT_MS: "100",
      MIGRATION_LOCK_RETRIES: "0",
    });
    expect({ code, stderr }).toEqual({ code: 1, stderr: "" });
    const records = stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const failures = records.filter((record) => Number(record["level"]) >= 50);
    expect(failures).toEqual([
      expect.objectContaining({
        level: 60,
        service: "worker",
        msg: "worker failed to start: migration failed",
        migration: "0021-reference-indexes",
        reason: expect.stringMatching(new RegExp(`^${BLOCKED_MIGRATION_MESSAGE}`)),
      }),
    ]);
    expect(stdout.split(BLOCKED_MIGRATION_MESSAGE).length - 1).toBe(1);
    expect(hasStackFrame(stdout)).toBe(false);
  });
});
