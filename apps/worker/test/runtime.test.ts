/** The worker's V8 setting (docs/decisions/0366) is the same wherever the worker is started as deployed. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WORKER_NODE_OPTIONS } from "../src/runtime.ts";

const app = join(import.meta.dirname, "..");

describe("V8 settings", () => {
  it("are the worker image's NODE_OPTIONS", () => {
    const dockerfile = readFileSync(join(app, "Dockerfile"), "utf8");
    expect(dockerfile).toContain(`ENV NODE_OPTIONS="${WORKER_NODE_OPTIONS}"`);
  });

  it("are the flags of `pnpm start` and of the worker's benchmark", () => {
    const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(manifest.scripts["start"]).toBe(`node ${WORKER_NODE_OPTIONS} src/main.ts`);
    expect(manifest.scripts["bench"]).toBe(`node ${WORKER_NODE_OPTIONS} bench/apply-snapshot.bench.ts`);
  });

  it("are the flags the benchmarks start the worker with", () => {
    const processes = readFileSync(join(app, "..", "api", "bench", "processes.ts"), "utf8");
    expect(processes).toContain("NODE_OPTIONS: WORKER_NODE_OPTIONS");
  });
});
