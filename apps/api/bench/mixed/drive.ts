/**
 * One step of mixed load: an autocannon instance per api process, each in
 * its own worker thread (so the load generator is not the bottleneck, and
 * both processes are loaded at once), their latencies merged into one
 * histogram and their tallies and accepted writes into one result.
 */
import { Worker } from "node:worker_threads";
import autocannon from "autocannon";
import type { AcceptedWrites, LoadTenant, MixInput, MixOutput } from "./mix.ts";

export interface StepOptions {
  /** Connections per api process. */
  readonly connections: number;
  /** Requests per second over both processes; unset: closed loop (each connection sends its next request on the last answer). */
  readonly overallRate?: number;
  readonly durationSeconds: number;
  /** Unique per step: every written reference starts with it. */
  readonly tag: string;
}

export interface StepResult {
  readonly connections: number;
  readonly overallRate: number | undefined;
  readonly durationSeconds: number;
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  /** operation -> status -> count, over both processes. */
  readonly statuses: Record<string, Record<string, number>>;
  readonly ok: number;
  /** 429 answers: the rate limiter doing its job, reported apart. */
  readonly rateLimited: number;
  /** Every other non-2xx answer. */
  readonly failedResponses: number;
  /** Connection errors and timeouts (no answer). */
  readonly transportErrors: number;
  readonly nonEnvelope: number;
  readonly unexpected: ReadonlyArray<string>;
  readonly accepted: AcceptedWrites;
}

interface Aggregate {
  aggregateResult: (
    results: ReadonlyArray<autocannon.Result>,
    opts: { readonly url: string; readonly connections: number },
  ) => autocannon.Result;
}

const runThread = (input: MixInput): Promise<MixOutput> =>
  new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./load-thread.ts", import.meta.url), { workerData: input });
    let output: MixOutput | undefined;
    worker.once("message", (message: MixOutput) => (output = message));
    worker.once("error", reject);
    worker.once("exit", (code) =>
      output === undefined ? reject(new Error(`load thread exited (${code}) without a result`)) : resolve(output),
    );
  });

/** Loads every api of `apiUrls` at once with the mix for `durationSeconds`; resolves with the merged result. */
export const runStep = async (
  apiUrls: ReadonlyArray<string>,
  tenants: ReadonlyArray<LoadTenant>,
  options: StepOptions,
): Promise<StepResult> => {
  const perProcessRate =
    options.overallRate === undefined
      ? undefined
      : Math.max(options.connections, Math.round(options.overallRate / apiUrls.length));
  const outputs = await Promise.all(
    apiUrls.map((baseUrl, index) =>
      runThread({
        baseUrl,
        tenants,
        connections: options.connections,
        ...(perProcessRate === undefined ? {} : { overallRate: perProcessRate }),
        durationSeconds: options.durationSeconds,
        tag: `${options.tag}-${index}`,
      }),
    ),
  );
  const merged = (autocannon as unknown as Aggregate).aggregateResult(
    outputs.map((output) => output.raw),
    { url: apiUrls[0]!, connections: options.connections * apiUrls.length },
  );
  const statuses: Record<string, Record<string, number>> = {};
  let ok = 0;
  let rateLimited = 0;
  let failedResponses = 0;
  for (const output of outputs) {
    for (const [operation, counts] of Object.entries(output.statuses)) {
      const into = (statuses[operation] ??= {});
      for (const [status, count] of Object.entries(counts)) {
        into[status] = (into[status] ?? 0) + count;
        const code = Number(status);
        if (code >= 200 && code < 300) ok += count;
        else if (code === 429) rateLimited += count;
        else failedResponses += count;
      }
    }
  }
  const duration = Math.max(...outputs.map((output) => output.raw.duration));
  const requests = merged.requests.total;
  return {
    connections: options.connections * apiUrls.length,
    overallRate: options.overallRate,
    durationSeconds: options.durationSeconds,
    requests,
    requestsPerSecond: Math.round(requests / duration),
    p50: merged.latency.p50,
    p90: merged.latency.p90,
    p99: merged.latency.p99,
    max: merged.latency.max,
    statuses,
    ok,
    rateLimited,
    failedResponses,
    transportErrors: merged.errors,
    nonEnvelope: outputs.reduce((sum, output) => sum + output.nonEnvelope, 0),
    unexpected: outputs.flatMap((output) => output.unexpected).slice(0, 10),
    accepted: {
      debts: outputs.flatMap((output) => output.accepted.debts),
      followups: outputs.flatMap((output) => output.accepted.followups),
      snapshots: outputs.flatMap((output) => output.accepted.snapshots),
    },
  };
};

/** Concatenates the accepted writes of several steps. */
export const mergeAccepted = (steps: ReadonlyArray<StepResult>): AcceptedWrites => ({
  debts: steps.flatMap((step) => step.accepted.debts),
  followups: steps.flatMap((step) => step.accepted.followups),
  snapshots: steps.flatMap((step) => step.accepted.snapshots),
});

/** One line for the console. */
export const describeStep = (step: StepResult): string =>
  `${step.connections} connections${step.overallRate === undefined ? "" : ` at ${step.overallRate} req/s`}: ${step.requestsPerSecond} req/s, p50 ${step.p50} ms, p99 ${step.p99} ms, 2xx ${step.ok}, 429 ${step.rateLimited}, other non-2xx ${step.failedResponses}, transport errors ${step.transportErrors}, non-envelope ${step.nonEnvelope}`;
