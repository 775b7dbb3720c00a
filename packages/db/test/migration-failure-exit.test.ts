/**
 * A migration that fails at start-up ends `pnpm db:migrate` and `pnpm dev`
 * (what `npm start` runs) with one line on stderr and exit code 1, not an
 * uncaught error's stack (docs/operations.md, Upgrades). The next migration
 * cannot get its lock (`blockNextMigration`), and with
 * `MIGRATION_LOCK_TIMEOUT_MS=100 MIGRATION_LOCK_RETRIES=0` the migrator gives
 * up after one wait. Both run against DATABASE_URL, so neither starts an
 * embedded cluster; `pnpm dev` still starts its database host, which must end
 * too (`runToEnd` waits for it).
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repositoryRoot } from "../src/repository-root.ts";
import {
  BLOCKED_MIGRATION_MESSAGE,
  blockedMigrationSettings,
  blockNextMigration,
  hasStackFrame,
  runToEnd,
  useTestDatabase,
} from "../../testing/index.ts";

const { db, url } = await useTestDatabase();
const blocker = await blockNextMigration(db, url);
afterAll(() => blocker.release());

const env = blockedMigrationSettings(url);
const occurrences = (text: string, part: string): number => text.split(part).length - 1;

describe("a migration that cannot get its lock at start-up", () => {
  it.each([
    ["pnpm db:migrate", "packages/db/src/scripts/migrate.ts"],
    ["pnpm dev", "tooling/scripts/src/dev.ts"],
  ])("ends `%s` with one line on stderr and exit code 1", { timeout: 30_000 }, async (_, entry) => {
    const { code, stdout, stderr } = await runToEnd(join(repositoryRoot(), entry), env);
    expect({ code, stdout }).toEqual({ code: 1, stdout: "" });
    expect(stderr.split("\n").filter(Boolean)).toEqual([
      expect.stringMatching(new RegExp(`^migration failed: ${BLOCKED_MIGRATION_MESSAGE}`)),
    ]);
    expect(occurrences(stderr, BLOCKED_MIGRATION_MESSAGE)).toBe(1);
    expect(hasStackFrame(stderr)).toBe(false);
  });
});
