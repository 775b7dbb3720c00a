/**
 * The metrics server over a real socket: `/metrics`, `/healthz`, 404 for the
 * rest, 500 when collecting fails, and closing.
 */
import { pino } from "pino";
import { Gauge, Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkerMetrics } from "../src/observability/metrics.ts";
import { type MetricsServer, startMetricsServer } from "../src/observability/server.ts";
import { captureLogger } from "./log-capture.ts";
import { sample } from "./metrics-text.ts";

const PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

describe("the metrics server", () => {
  const metrics = createWorkerMetrics(pino({ level: "silent" }));
  let server: MetricsServer;
  const url = (path: string): string => `http://127.0.0.1:${server.port}${path}`;

  beforeAll(async () => {
    server = await startMetricsServer({ registry: metrics.registry, port: 0, logger: pino({ level: "silent" }) });
  });
  afterAll(async () => {
    await server.close();
  });

  it("serves the registry at GET /metrics in the Prometheus text format", async () => {
    metrics.observeSnapshotApply({ outcome: "completed", seconds: 0.2, rows: 3 });
    const response = await fetch(url("/metrics?debug=1"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(PROMETHEUS_TEXT);
    expect(response.headers.get("content-type")).toBe(metrics.registry.contentType);
    const body = await response.text();
    expect(sample(body, 'snapshot_apply_total{outcome="completed"}')).toBe(1);
    expect(sample(body, 'snapshot_apply_duration_seconds_bucket{le="0.25",outcome="completed"}')).toBe(1);
    expect(sample(body, 'snapshot_apply_duration_seconds_bucket{le="0.1",outcome="completed"}')).toBe(0);
    expect(sample(body, "snapshot_rows_applied_total")).toBe(3);
    expect(body).toContain("# TYPE process_cpu_user_seconds_total counter");
  });

  it("answers GET /healthz with 200 {status: ok}", async () => {
    const response = await fetch(url("/healthz"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("answers 404 to any other path or method", async () => {
    for (const [method, path] of [
      ["GET", "/"],
      ["GET", "/metrics/extra"],
      ["POST", "/metrics"],
      ["DELETE", "/healthz"],
    ] as const) {
      const response = await fetch(url(path), { method });
      expect([method, path, response.status]).toEqual([method, path, 404]);
    }
  });
});

describe("the metrics server when a metric cannot be collected", () => {
  it("answers 500 without details and logs the cause", async () => {
    const registry = new Registry();
    new Gauge({
      name: "broken",
      help: "always fails",
      registers: [registry],
      collect() {
        throw new Error("collector exploded");
      },
    });
    const { logger, records } = captureLogger();
    const server = await startMetricsServer({ registry, port: 0, logger });
    try {
      const response = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      expect(response.status).toBe(500);
      expect(await response.text()).toBe("metrics unavailable\n");
      expect(records).toMatchObject([
        { level: 50, msg: "metrics could not be collected", err: { message: "collector exploded" } },
      ]);
    } finally {
      await server.close();
    }
  });
});

describe("startMetricsServer", () => {
  it("rejects a port already in use, and frees its port on close", async () => {
    const logger = pino({ level: "silent" });
    const registry = new Registry();
    const first = await startMetricsServer({ registry, port: 0, logger });
    await expect(startMetricsServer({ registry, port: first.port, logger })).rejects.toMatchObject({
      code: "EADDRINUSE",
    });
    await first.close();
    await expect(fetch(`http://127.0.0.1:${first.port}/healthz`)).rejects.toThrow();
    const again = await startMetricsServer({ registry, port: first.port, logger });
    await again.close();
  });
});
