/**
 * The admin CLI migrates before each command outside production; a
 * migration that fails there is the one line `migration failed: ...` on
 * stderr and exit code 1, as from `pnpm db:migrate` and `pnpm dev`
 * (docs/operations.md, Upgrades), not an unexpected failure with a stack.
 */
import { join } from "node:path";
import {
  BLOCKED_MIGRATION_MESSAGE,
  blockedMigrationSettings,
  blockNextMigration,
  hasStackFrame,
  runToEnd,
  useTestDatabase,
} from "@dc/testing";
import { afterAll, describe, expect, it } from "vitest";

const { db, url } = await useTestDatabase();
const blocker = await blockNextMigration(db, url);
afterAll(() => blocker.release());

describe("the admin CLI when a migration cannot get its lock", () => {
  it("writes one line naming the migration, creates nothing and exits 1", { timeout: 30_000 }, async () => {
    const { code, stdout, stderr } = await runToEnd(
      join(import.meta.dirname, "..", "src", "cli", "main.ts"),
      { ...blockedMigrationSettings(url), NODE_ENV: "development" },
      ["tenant", "create", "--name", "Blocked"],
    );
    expect({ code, stdout }).toEqual({ code: 1, stdout: "" });
    const lines = stderr.split("\n").filter((line) => line !== "" && !line.includes("ExperimentalWarning"));
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^migration failed: ${BLOCKED_MIGRATION_MESSAGE}`))]);
    expect(hasStackFrame(stderr)).toBe(false);
    expect(await db.selectFrom("companies").select("id").execute()).toEqual([]);
  });
});
