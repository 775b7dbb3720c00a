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
import { blockNextMigration, expectOneFatalMigrationLine, useTestDatabase } from "@dc/testing";
import { afterAll, describe, it } from "vitest";

const { db, url } = await useTestDatabase();
const blocker = await blockNextMigration(db, url);
afterAll(() => blocker.release());

describe("node src/main.ts when a migration cannot get its lock", () => {
  it("logs one fatal line naming the migration and exits 1", { timeout: 30_000 }, () =>
    expectOneFatalMigrationLine(join(import.meta.dirname, "..", "src", "main.ts"), url, "worker"),
  );
});
