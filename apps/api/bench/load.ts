/** A thin wrapper over autocannon: one scenario, its throughput and latency. */
import autocannon from "autocannon";

export interface LoadResult {
  readonly name: string;
  readonly requestsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly total: number;
  /** Responses by status code (autocannon's counts). */
  readonly statusCodes: Readonly<Record<string, number>>;
}

export interface Scenario {
  readonly name: string;
  readonly url: string;
  readonly method?: "GET" | "POST";
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly connections?: number;
  readonly durationSeconds: number;
}

export const runScenario = async (scenario: Scenario): Promise<LoadResult> => {
  const result = await autocannon({
    url: scenario.url,
    method: scenario.method ?? "GET",
    connections: scenario.connections ?? 50,
    duration: scenario.durationSeconds,
    ...(scenario.headers === undefined ? {} : { headers: scenario.headers }),
    ...(scenario.body === undefined ? {} : { body: scenario.body }),
  });
  return {
    name: scenario.name,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats?.count ?? 0])),
  };
};

/**
 * Slices of one scenario as one result: throughput over all of them, the
 * median of their p50s and the worst of their p99s.
 */
export const combineSlices = (name: string, slices: ReadonlyArray<LoadResult>): LoadResult => {
  const p50s = slices.map((slice) => slice.p50).sort((a, b) => a - b);
  return {
    name,
    requestsPerSecond: Math.round(
      slices.reduce((sum, slice) => sum + slice.requestsPerSecond, 0) / Math.max(1, slices.length),
    ),
    p50: p50s[Math.floor(p50s.length / 2)] ?? 0,
    p99: Math.max(0, ...slices.map((slice) => slice.p99)),
    non2xx: slices.reduce((sum, slice) => sum + slice.non2xx, 0),
    errors: slices.reduce((sum, slice) => sum + slice.errors, 0),
    total: slices.reduce((sum, slice) => sum + slice.total, 0),
    statusCodes: {},
  };
};

/** Latency of `count` sequential requests (single client): p50 and p99 in ms. */
export const sequentialLatency = async (count: number, send: () => Promise<Response>): Promise<{ p50: number; p99: number; failures: number }> => {
  const samples: number[] = [];
  let failures = 0;
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await send();
    await response.arrayBuffer();
    samples.push(performance.now() - started);
    if (!response.ok) failures++;
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => Math.round(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]! * 100) / 100;
  return { p50: at(0.5), p99: at(0.99), failures };
};
