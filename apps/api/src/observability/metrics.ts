/**
 * Prometheus metrics of an api process: request counts and latency by route
 * and status, plus gauges read from PostgreSQL at scrape time (the job queue
 * and snapshots by status), which every api process reports alike.
 */
import { countSnapshotsByStatus, type Db, jobQueueDepth, jobQueueDepthGauge } from "@dc/db";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export interface ApiMetrics {
  readonly registry: Registry;
  readonly observeRequest: (labels: { method: string; route: string; status: number }, seconds: number) => void;
}

export const createApiMetrics = (db: Db): ApiMetrics => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests by route template, method and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request latency by route template, method and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  new Gauge({
    ...jobQueueDepthGauge,
    registers: [registry],
    async collect() {
      const queue = await jobQueueDepth(db);
      this.reset();
      for (const { task, depth } of queue) this.set({ task }, depth);
    },
  });
  new Gauge({
    name: "snapshots_by_status",
    help: "Snapshots by status (all companies)",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      const rows = await countSnapshotsByStatus(db);
      this.reset();
      for (const row of rows) this.set({ status: row.status }, Number(row.count));
    },
  });
  return {
    registry,
    observeRequest: (labels, seconds) => {
      const values = { method: labels.method, route: labels.route, status: String(labels.status) };
      requests.inc(values);
      duration.observe(values, seconds);
    },
  };
};
