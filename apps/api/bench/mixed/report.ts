/** The mixed-load section of docs/benchmarks.md: search, the measured run, memory and the no-loss verdict. */
import { cpus, totalmem } from "node:os";
import type { StepResult } from "./drive.ts";
import { MIX } from "./mix.ts";
import type { Verification, WriteCheck } from "./verify.ts";

export const P99_TARGET_MS = 100;

export interface MixedReport {
  readonly quick: boolean;
  readonly command: string;
  readonly debts: number;
  readonly tenants: number;
  readonly rateLimitScale: number;
  readonly warmUpSeconds: number;
  readonly search: ReadonlyArray<StepResult>;
  readonly run: StepResult;
  /** Per process: highest VmRSS sampled during the run, lifetime peak (VmHWM), VmRSS at the end. */
  readonly memory: ReadonlyArray<{
    readonly process: string;
    readonly runPeakMb: number;
    readonly lifetimePeakMb: number;
    readonly endMb: number;
  }>;
  readonly verification: Verification;
}

const errorsOf = (step: StepResult) => step.failedResponses + step.transportErrors;

const writeLine = (name: string, check: WriteCheck) =>
  `- ${name}: ${check.accepted.toLocaleString("en")} accepted, ${check.found.toLocaleString("en")} found exactly once under the acknowledged id, ${check.missing} missing, ${check.duplicated} duplicated, ${check.mismatched} under another id; ${check.unacknowledged} written by requests cut off when a step ended (never acknowledged).`;

/** Whether the run met the benchmark's bar: no error but 429s, envelopes only, nothing lost. */
export const runPassed = (report: Pick<MixedReport, "run" | "search" | "verification">): boolean =>
  [report.run, ...report.search].every((step) => errorsOf(step) === 0 && step.nonEnvelope === 0) &&
  report.verification.ok;

/** The markdown of the section (without its markers). */
export const mixedLoadSection = (report: MixedReport): string => {
  const { run, verification } = report;
  const row = (step: StepResult) =>
    `| ${step.connections} | ${step.requestsPerSecond.toLocaleString("en")} | ${step.p50} | ${step.p99} | ${step.rateLimited} | ${errorsOf(step)} | ${step.p99 < P99_TARGET_MS && errorsOf(step) === 0 ? "yes" : "no"} |`;
  const operations = MIX.map((entry) => {
    const counts = run.statuses[entry.operation] ?? {};
    const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
    const ok = Object.entries(counts).reduce((sum, [status, count]) => sum + (Number(status) < 300 ? count : 0), 0);
    const rateLimited = counts["429"] ?? 0;
    const codes = Object.keys(counts).sort().join(", ");
    return `| ${entry.label} | ${entry.weight} % | ${total.toLocaleString("en")} | ${ok.toLocaleString("en")} | ${rateLimited} | ${total - ok - rateLimited} | ${codes} |`;
  });
  const date = new Date().toISOString().slice(0, 10);
  return [
    "## Mixed load (two api processes and a worker)",
    "",
    ...(report.quick
      ? [
          `> **Quick run** (\`--quick\`: ${report.search[0]?.durationSeconds ?? 0} s search steps, ${run.durationSeconds} s run), on a shared machine: these figures check that the benchmark works; they are not capacity figures. The full run (\`pnpm --filter @dc/api bench:load\`, 60 s) rewrites this section.`,
          "",
        ]
      : []),
    `Run on ${date}: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, embedded PostgreSQL 18 on the same machine. Two api processes (production mode, LOG_LEVEL=warn, DATABASE_POOL_SIZE=10 and DATABASE_READ_POOL_SIZE=5 each, RATE_LIMIT_SCALE=${report.rateLimitScale}) and one worker (concurrency 4) on one database of ${report.tenants} companies and ${report.debts.toLocaleString("en")} seeded debts. One autocannon instance per api process, each in its own thread, closed loop (a connection sends its next request when the last is answered). Command: \`${report.command}\`.`,
    "",
    `Search after a ${report.warmUpSeconds} s warm-up (connections over both processes, ${report.search[0]?.durationSeconds ?? 0} s per step; the highest count with p99 under ${P99_TARGET_MS} ms and no error is kept):`,
    "",
    "| connections | req/s | p50 ms | p99 ms | 429 | errors | kept |",
    "|---|---|---|---|---|---|---|",
    ...report.search.map(row),
    "",
    `Measured run: ${run.durationSeconds} s at ${run.connections} connections (${run.connections / 2} per api process): **${run.requestsPerSecond.toLocaleString("en")} req/s** (${run.requests.toLocaleString("en")} requests), latency p50 **${run.p50} ms**, p90 ${run.p90} ms, p99 **${run.p99} ms** (target < ${P99_TARGET_MS} ms: ${run.p99 < P99_TARGET_MS ? "met" : "missed"}), max ${run.max} ms.`,
    "",
    "| operation | share | requests | 2xx | 429 (intended) | other errors | statuses |",
    "|---|---|---|---|---|---|---|",
    ...operations,
    "",
    `- Errors: ${run.failedResponses} non-2xx answers other than 429, ${run.transportErrors} connection errors or timeouts, ${run.nonEnvelope} answers without the contract's envelope; ${run.rateLimited} intended 429s.`,
    `- Memory (VmRSS): ${report.memory.map((entry) => `${entry.process} peak ${entry.runPeakMb} MB during the run (lifetime peak ${entry.lifetimePeakMb} MB), ${entry.endMb} MB at the end`).join("; ")}.`,
    "",
    `No loss, checked in PostgreSQL after the warm-up, the search and the run (every step's writes; the worker finished the snapshots ${verification.waitedSeconds} s after the load stopped):`,
    "",
    writeLine("debts (`POST /debts`, by internal_id)", verification.debts),
    writeLine("followups (`POST /followups`, by call_id)", verification.followups),
    `${writeLine("snapshots (one-request submits, by reference)", verification.snapshots)} Status after the wait: ${
      Object.entries(verification.snapshots.byStatus)
        .map(([status, count]) => `${count} ${status}`)
        .join(", ") || "none"
    }.`,
    `- Verdict: ${verification.ok ? "**no accepted write lost or duplicated**" : `**FAILED**: ${verification.problems.join("; ")}`}.`,
  ].join("\n");
};
