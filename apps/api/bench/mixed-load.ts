/**
 * `pnpm --filter @dc/api bench:load`: mixed traffic against two api
 * processes and a worker on one ephemeral embedded PostgreSQL (or
 * BENCH_DATABASE_URL's server) with 50,000 seeded debts. A short search
 * finds the most connections whose p99 stays under 100 ms; the measured run
 * (60 s) follows at that load. Afterwards every accepted write is checked in
 * PostgreSQL. Writes its section of docs/benchmarks.md and exits non-zero on
 * any error other than 429, any non-envelope answer, or any lost write.
 *
 * Flags: `--quick` (3 s steps, 10 s run: checks the machinery, not capacity),
 * `--duration <s>`, `--step <s>`, `--connections <n>` (per api process: no
 * search), `--rate-limit-scale <n>`.
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { describeStep, runStep, type StepResult } from "./mixed/drive.ts";
import { type MixedReport, mixedLoadSection, P99_TARGET_MS, runPassed } from "./mixed/report.ts";
import { MIXED_LOAD_SHAPE, sampleMemory, startMixedSystem } from "./mixed/system.ts";
import { verifyRun } from "./mixed/verify.ts";
import { startBenchDatabase } from "./processes.ts";
import { writeSection } from "@dc/testing";

const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    duration: { type: "string" },
    step: { type: "string" },
    connections: { type: "string" },
    "rate-limit-scale": { type: "string" },
  },
});
const quick = flags.quick;
const number = (value: string | undefined, fallback: number) => (value === undefined ? fallback : Number(value));
const durationSeconds = number(flags.duration, quick ? 10 : 60);
const stepSeconds = number(flags.step, quick ? 3 : 10);
const fixedConnections = flags.connections === undefined ? undefined : Number(flags.connections);
const rateLimitScale = number(flags["rate-limit-scale"], 1_000);
/** Connections per api process tried by the search, in order. */
const CANDIDATES = [1, 2, 4, 8, 16, 32, 64, 128];

const log = (line: string) => process.stdout.write(`${line}\n`);
const acceptable = (step: StepResult) =>
  step.p99 < P99_TARGET_MS && step.failedResponses + step.transportErrors === 0 && step.nonEnvelope === 0;

const main = async (): Promise<boolean> => {
  const runTag = randomBytes(4).toString("hex");
  const database = await startBenchDatabase();
  let system: Awaited<ReturnType<typeof startMixedSystem>> | undefined;
  try {
    system = await startMixedSystem({
      databaseUrl: database.url,
      db: database.db,
      shape: MIXED_LOAD_SHAPE,
      rateLimitScale,
    });
    const apiUrls = system.apis.map((api) => api.url);
    const started = system;
    let stepIndex = 0;
    const step = async (connections: number, seconds: number) => {
      const result = await runStep(apiUrls, started.tenants, {
        connections,
        durationSeconds: seconds,
        tag: `${runTag}-s${stepIndex++}`,
      });
      log(`  ${describeStep(result)}`);
      return result;
    };

    // Warm-up (JIT, pools, caches): verified like every step, reported nowhere.
    const warmUpSeconds = Math.min(stepSeconds, 5);
    log(`warm-up: ${warmUpSeconds} s`);
    const warmUp = await step(2, warmUpSeconds);

    const search: StepResult[] = [];
    let best = fixedConnections ?? 1;
    if (fixedConnections === undefined) {
      log(`search: ${stepSeconds} s per step, p99 target < ${P99_TARGET_MS} ms`);
      for (const connections of CANDIDATES) {
        const result = await step(connections, stepSeconds);
        search.push(result);
        if (!acceptable(result)) break;
        best = connections;
      }
      // One more step halfway to the count that failed, when there is room.
      const between = Math.round(best * 1.5);
      const failedAbove = search.some(
        (result) => result.connections === best * 2 * apiUrls.length && !acceptable(result),
      );
      if (failedAbove && between > best && between < best * 2) {
        const result = await step(between, stepSeconds);
        search.push(result);
        if (acceptable(result)) best = between;
      }
    }

    log(`run: ${durationSeconds} s at ${best} connections per api process`);
    const sampler = sampleMemory(system);
    const run = await step(best, durationSeconds);
    const runPeaks = sampler.stop();

    const verification = await verifyRun(
      database.db,
      system.ids,
      runTag,
      [warmUp, ...search, run],
      quick ? 60_000 : 180_000,
    );
    log(
      `verification: ${verification.ok ? "no accepted write lost" : verification.problems.join("; ")} (snapshots finished ${verification.waitedSeconds} s after the load)`,
    );
    const memory = system.memory().map((entry) => ({
      process: entry.process,
      runPeakMb: runPeaks.get(entry.process) ?? entry.rssMb,
      lifetimePeakMb: entry.peakMb,
      endMb: entry.rssMb,
    }));
    for (const entry of memory)
      log(
        `${entry.process}: RSS peak ${entry.runPeakMb} MB during the run, lifetime peak ${entry.lifetimePeakMb} MB, end ${entry.endMb} MB`,
      );

    const args = process.argv.slice(2).join(" ");
    const report: MixedReport = {
      quick,
      command: `pnpm --filter @dc/api bench:load${args === "" ? "" : ` -- ${args}`}`,
      debts: system.seeded.debts,
      tenants: system.tenants.length,
      rateLimitScale,
      warmUpSeconds,
      search,
      run,
      memory,
      verification,
    };
    writeSection("mixed-load", mixedLoadSection(report));
    const passed = runPassed(report);
    if (!passed) {
      log("FAILED: errors other than 429, non-envelope answers or lost writes (see above)");
      for (const line of [...search, run].flatMap((result) => result.unexpected).slice(0, 10)) log(`  ${line}`);
    }
    return passed;
  } finally {
    await system?.stop();
    await database.close();
  }
};

main().then(
  (passed) => process.exit(passed ? 0 : 1),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
