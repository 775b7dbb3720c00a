import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import type { ApiConfig } from "../src/config.ts";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();

/** The first log line `matches` accepts, waiting up to 5 s for it to be written. */
const waitForLogLine = async (matches: (entry: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
  for (let waited = 0; waited < 5_000; waited += 25) {
    const found = t.logLines.map((text) => JSON.parse(text) as Record<string, unknown>).find(matches);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("no such log line");
};

describe("operational endpoints", () => {
  it("/healthz answers while the process lives", async () => {
    const response = await t.get("/healthz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("/readyz reports the database reachable and the schema current", async () => {
    const response = await t.get("/readyz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ready", checks: { database: true, migrations: true } });
  });

  it("/readyz is 503 while the database cannot be reached, and /healthz stays 200", async () => {
    const orphan = await t.startAnotherApi({ databaseUrl: "postgres://postgres:postgres@127.0.0.1:9/nowhere" });
    try {
      const ready = await fetch(`${orphan.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: "not_ready", checks: { database: false, migrations: false } });
      expect((await fetch(`${orphan.url}/healthz`)).status).toBe(200);
      // An API call while the database is down is a 503 envelope, not a 500.
      const call = await fetch(`${orphan.url}/external-api/v1/company/profile`, { headers: { authorization: "Bearer dcat_x" } });
      expect(call.status).toBe(503);
      expect(await call.json()).toEqual({ error: true, message: "Service temporarily unavailable", code: 503 });
    } finally {
      await orphan.stop();
    }
  });

  it("/metrics exposes request counts and latency by route template and status, and the job queue", async () => {
    const tenant = await t.tenant("Metered Corp");
    const token = await t.token(tenant);
    await t.get("/external-api/v1/company/profile", token);
    await t.get("/external-api/v1/company/profile");
    const response = await t.get("/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/external-api\/v1\/company\/profile",status="200"\} [1-9]/);
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/external-api\/v1\/company\/profile",status="401"\} [1-9]/);
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.1",method="GET",route="/external-api/v1/company/profile",status="200"}');
    expect(text).toContain("# TYPE job_queue_depth gauge");
    expect(text).toContain("# TYPE snapshots_by_status gauge");
  });
});

describe("who may read /metrics", () => {
  const startWith = (config: Partial<ApiConfig>) => t.startAnotherApi({ config });

  it("with METRICS_TOKEN: that bearer token only", async () => {
    const token = "metrics-scraper-token-0123456789abcdef";
    const api = await startWith({ metricsToken: token });
    try {
      for (const authorization of [undefined, "Bearer wrong", `Bearer ${token}x`, token]) {
        const refused = await fetch(`${api.url}/metrics`, authorization === undefined ? {} : { headers: { authorization } });
        expect(refused.status).toBe(401);
        expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
        expect(await refused.text()).not.toContain("http_requests_total");
      }
      const allowed = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(allowed.status).toBe(200);
      expect(await allowed.text()).toContain("# TYPE snapshots_by_status gauge");
    } finally {
      await api.stop();
    }
  });

  it("in production without METRICS_TOKEN: not served, answered like any unknown path", async () => {
    const api = await startWith({ environment: "production" });
    try {
      const metrics = await fetch(`${api.url}/metrics`);
      const unknown = await fetch(`${api.url}/no-such-path`);
      expect(metrics.status).toBe(404);
      expect(await metrics.text()).toBe(await unknown.text());
      expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    } finally {
      await api.stop();
    }
  });
});

describe("request logs", () => {
  it("log a client that goes away in the middle of its body as a 400, not as a failure of ours", async () => {
    const tenant = await t.tenant("Vanishing Corp");
    const token = await t.token(tenant);
    const { port } = new URL(t.api.url);
    /** Sends the head and the start of a 100-byte body, then closes the connection. */
    const vanish = (path: string, headers: string, start: string) =>
      new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), "127.0.0.1", () => {
          socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\n${headers}Content-Length: 100\r\n\r\n${start}`);
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 200);
        });
        socket.on("error", reject);
      });
    await vanish(
      "/external-api/v1/debts",
      `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\nX-Request-Id: vanishing-client-01\r\n`,
      '{"amount":',
    );
    // The authorization page's form too.
    await vanish("/oauth/authorize", "Content-Type: application/x-www-form-urlencoded\r\nX-Request-Id: vanishing-client-02\r\n", "action=");
    for (const requestId of ["vanishing-client-01", "vanishing-client-02"]) {
      const line = await waitForLogLine((entry) => entry["requestId"] === requestId);
      expect(line, requestId).toMatchObject({ level: 30, msg: "request", status: 400 });
      expect(t.logLines.some((text) => text.includes(requestId) && text.includes('"level":50')), requestId).toBe(false);
    }
  });

  it("carry the request id, company, route, status and duration, and never a token or a secret", async () => {
    const tenant = await t.tenant("Logged Corp");
    const token = await t.token(tenant);
    const response = await t.request("/external-api/v1/company/profile", {
      headers: { authorization: `Bearer ${token}`, "x-request-id": "trace-0123456789" },
    });
    expect(response.headers.get("x-request-id")).toBe("trace-0123456789");
    const line = t.logLines.map((text) => JSON.parse(text) as Record<string, unknown>).find((entry) => entry["requestId"] === "trace-0123456789");
    expect(line).toMatchObject({
      level: 30,
      msg: "request",
      method: "GET",
      route: "/external-api/v1/company/profile",
      status: 200,
      companyId: expect.any(Number),
      durationMs: expect.any(Number),
    });
    const everything = t.logLines.join("\n");
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(tenant.client_secret);
    expect(everything).not.toContain(tenant.user_password);
  });
});
