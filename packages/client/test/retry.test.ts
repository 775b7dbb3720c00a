/**
 * Retries on the wire, against a scripted local server: 503, 429 with
 * `Retry-After` and dropped connections are retried with backoff on GET, PUT
 * and DELETE and on the creating POSTs, which carry an `Idempotency-Key`,
 * never on another POST; an over-long `Retry-After` is returned at once.
 * Waits are recorded through the injected `sleep`, never slept.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { beforeEach, describe, expect, it, vi } from "vitest";
import {
  AttemptTimeoutError,
  backoffDelay,
  type ClientError,
  type ClientOptions,
  createClient,
  DebtCollectionError,
  defaultRetryPolicy,
  describe as describeError,
} from "../src/index.ts";
import { sleep } from "../src/retry.ts";
import { answers, startStub, stubClient } from "./support/stub-server.ts";

const stub = await startStub();
const PROFILE = "/external-api/v1/company/profile";
const DEBTS = "/external-api/v1/debts";
/** A POST without an Idempotency-Key (docs/decisions/0024 names the creations that take one). */
const WEBHOOK_ENDPOINTS = "/external-api/v1/webhooks/endpoints";
const endpointBody = { url: "https://hooks.example.com/in" };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const profile = { id: "c1", name: "Stub", email: "stub@example.com", phone: null, created_at: "2026-11-21T10:00:00+00:00" };

const client = (options: Partial<ClientOptions> = {}) => stubClient(stub.baseUrl, options);

beforeEach(() => stub.reset());

describe("retries", () => {
  it("retries a GET on 503 with exponential backoff and full jitter, then succeeds", async () => {
    stub.script("GET", PROFILE, answers.unavailable(), answers.unavailable(), answers.ok(profile));
    const { api, waits } = client();
    const result = await api.GET(PROFILE);
    expect(result.data?.data).toEqual(profile);
    expect(stub.count("GET", PROFILE)).toBe(3);
    // random() = 0.5: half of 250 ms, then half of 500 ms.
    expect(waits).toEqual([125, 250]);
  });

  it("waits at least Retry-After on 429", async () => {
    stub.script("GET", PROFILE, answers.rateLimited("2"), answers.ok(profile));
    const { api, waits } = client();
    const result = await api.GET(PROFILE);
    expect(result.error).toBeUndefined();
    expect(waits).toEqual([2000]);
  });

  it("returns RateLimited at once when Retry-After is longer than maxRetryAfterSeconds", async () => {
    stub.script("GET", PROFILE, answers.rateLimited("3600"));
    const { api, waits } = client();
    const result = await api.GET(PROFILE);
    expect(result.error).toEqual({ kind: "rate_limited", retryAfterSeconds: 3600, message: "Rate limit exceeded" });
    expect(stub.count("GET", PROFILE)).toBe(1);
    expect(waits).toEqual([]);
  });

  it("gives up after maxRetries and returns the last 503", async () => {
    stub.script("GET", PROFILE, answers.unavailable("1"));
    const { api, waits } = client({ retry: { maxRetries: 2 } });
    const result = await api.GET(PROFILE);
    expect(result.error).toEqual({ kind: "api", status: 503, code: 503, message: "Service temporarily unavailable", retryAfterSeconds: 1 });
    expect(stub.count("GET", PROFILE)).toBe(3);
    expect(waits).toEqual([1000, 1000]);
  });

  it("retries PUT and DELETE, which are idempotent", async () => {
    stub.script("PUT", "/external-api/v1/creditors/c1", answers.unavailable(), answers.ok({ id: "c1" }));
    stub.script("DELETE", "/external-api/v1/debts/d1", answers.hangUp(), answers.ok(undefined));
    const { api } = client();
    expect((await api.PUT("/external-api/v1/creditors/{id}", { params: { path: { id: "c1" } }, body: { name: "N" } })).error).toBeUndefined();
    expect((await api.DELETE("/external-api/v1/debts/{id}", { params: { path: { id: "d1" } } })).error).toBeUndefined();
    expect(stub.count("PUT", "/external-api/v1/creditors/c1")).toBe(2);
    expect(stub.count("DELETE", "/external-api/v1/debts/d1")).toBe(2);
  });

  it("never retries a POST without an Idempotency-Key: 503 and a dropped connection are returned as they are", async () => {
    stub.script("POST", WEBHOOK_ENDPOINTS, answers.unavailable());
    const { api, waits } = client();
    const unavailable = await api.POST(WEBHOOK_ENDPOINTS, { body: endpointBody });
    expect(unavailable.error).toMatchObject({ kind: "api", status: 503 });
    stub.script("POST", WEBHOOK_ENDPOINTS, answers.hangUp());
    const dropped = await api.POST(WEBHOOK_ENDPOINTS, { body: endpointBody });
    expect(dropped.error?.kind).toBe("network");
    expect(dropped.response).toBeUndefined();
    expect(stub.count("POST", WEBHOOK_ENDPOINTS)).toBe(2);
    expect(stub.requests.filter((request) => request.idempotencyKey !== undefined)).toEqual([]);
    expect(waits).toEqual([]);
  });

  it("never retries a POST the api takes no key for, nor a PATCH, even when the caller sets an Idempotency-Key: the api ignores it there", async () => {
    stub.script("POST", WEBHOOK_ENDPOINTS, answers.unavailable());
    stub.script("PATCH", "/external-api/v1/debts/d1", answers.unavailable());
    const { api, waits } = client();
    const hook = await api.POST(WEBHOOK_ENDPOINTS, { body: endpointBody, headers: { "Idempotency-Key": "hook-1" } });
    expect(hook.error).toMatchObject({ kind: "api", status: 503 });
    const patch = await api.PATCH("/external-api/v1/debts/{id}", {
      params: { path: { id: "d1" } },
      body: { city: "Lyon" },
      headers: { "Idempotency-Key": "patch-1" },
    });
    expect(patch.error).toMatchObject({ kind: "api", status: 503 });
    expect(stub.count("POST", WEBHOOK_ENDPOINTS)).toBe(1);
    expect(stub.count("PATCH", "/external-api/v1/debts/d1")).toBe(1);
    expect(waits).toEqual([]);
  });

  it("retries a creation after a 503 and a dropped connection with the one Idempotency-Key it generated for the call", async () => {
    stub.script("POST", DEBTS, answers.unavailable(), answers.hangUp(), {
      status: 201,
      body: { error: false, message: "Debt created successfully", data: { id: "d1" } },
    });
    const { api, waits } = client();
    const result = await api.POST(DEBTS, { body: { amount: 1, currency: "EUR" } });
    expect(result.response?.status).toBe(201);
    const keys = stub.requests.filter((request) => request.path === DEBTS).map((request) => request.idempotencyKey);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(UUID);
    expect(new Set(keys).size).toBe(1);
    expect(waits).toHaveLength(2);

    // The next call is another request: another key.
    stub.script("POST", DEBTS, { status: 201, body: { error: false, message: "Debt created successfully", data: { id: "d2" } } });
    await api.POST(DEBTS, { body: { amount: 1, currency: "EUR" } });
    const next = stub.requests.filter((request) => request.path === DEBTS).at(-1)?.idempotencyKey;
    expect(next).toMatch(UUID);
    expect(next).not.toBe(keys[0]);
  });

  it("keeps the caller's own Idempotency-Key, on every retry, and gives one to each keyed creation", async () => {
    stub.script("POST", DEBTS, answers.unavailable(), { status: 201, body: { error: false, message: "ok", data: {} } });
    const { api } = client();
    await api.POST(DEBTS, { body: { amount: 1, currency: "EUR" }, headers: { "Idempotency-Key": "invoice-1042" } });
    expect(stub.requests.filter((request) => request.path === DEBTS).map((request) => request.idempotencyKey)).toEqual([
      "invoice-1042",
      "invoice-1042",
    ]);
    for (const path of ["/external-api/v1/debts/batch", "/external-api/v1/followups", "/external-api/v1/creditors"] as const) {
      stub.script("POST", path, { status: 201, body: { error: false, message: "ok", data: {} } });
      await api.raw.POST(path, { body: {} as never });
      expect(stub.requests.find((request) => request.path === path)?.idempotencyKey, path).toMatch(UUID);
    }
  });

  it("reports a NetworkError once retries of a GET are exhausted", async () => {
    stub.script("GET", PROFILE, answers.hangUp());
    const { api, waits } = client({ retry: { maxRetries: 1 } });
    const result = await api.GET(PROFILE);
    expect(result.error).toEqual({ kind: "network", cause: expect.any(Error) });
    expect(stub.count("GET", PROFILE)).toBe(2);
    expect(waits).toHaveLength(1);
  });

  it("describes a refused connection with its cause, not fetch's bare 'fetch failed'", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const { api } = stubClient(`http://127.0.0.1:${port}`, { retry: false });
    const result = await api.GET(PROFILE);
    expect(result.error?.kind).toBe("network");
    const text = describeError(result.error as ClientError);
    expect(text).toBe(`network error: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(new DebtCollectionError(result.error as ClientError).message).toBe(text);
  });

  it("retries a token request that failed before the API call left, even for a POST", async () => {
    stub.script("POST", "/oauth/token", answers.unavailable(), answers.token());
    stub.script("POST", DEBTS, { status: 201, body: { error: false, message: "Debt created successfully", data: { id: "d1" } } });
    const { api } = client();
    const result = await api.POST(DEBTS, { body: { amount: 1, currency: "EUR" } });
    expect(result.response?.status).toBe(201);
    expect(stub.count("POST", "/oauth/token")).toBe(2);
    expect(stub.count("POST", DEBTS)).toBe(1);
  });

  it("waits the token endpoint's Retry-After before asking it again", async () => {
    stub.script("POST", "/oauth/token", answers.unavailable("5"), answers.token());
    stub.script("GET", PROFILE, answers.ok(profile));
    const { api, waits } = client();
    const result = await api.GET(PROFILE);
    expect(result.error).toBeUndefined();
    expect(stub.count("POST", "/oauth/token")).toBe(2);
    expect(waits).toEqual([5000]);
  });

  it("retry: false turns retries off", async () => {
    stub.script("GET", PROFILE, answers.unavailable(), answers.ok(profile));
    const { api } = client({ retry: false });
    expect((await api.GET(PROFILE)).error).toMatchObject({ status: 503 });
    expect(stub.count("GET", PROFILE)).toBe(1);
  });

  it("tells onRetry why it waits", async () => {
    stub.script("GET", PROFILE, answers.rateLimited("1"), answers.ok(profile));
    const events: unknown[] = [];
    const { api } = client({ onRetry: (event) => events.push(event) });
    await api.GET(PROFILE);
    expect(events).toEqual([{ method: "GET", url: `${stub.baseUrl}${PROFILE}`, retry: 1, delayMs: 1000, status: 429 }]);
  });
});

describe("abort signals", () => {
  it("the default wait ends at the abort and leaves no timer behind", async () => {
    vi.useFakeTimers();
    try {
      const controller = new AbortController();
      const waiting = sleep(60_000, controller.signal);
      expect(vi.getTimerCount()).toBe(1);
      controller.abort();
      await waiting;
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("does not retry a request whose signal is aborted: the call ends at once with the abort", async () => {
    stub.script("GET", PROFILE, answers.ok(profile));
    const { api, waits } = client();
    const controller = new AbortController();
    controller.abort();
    const result = await api.GET(PROFILE, { signal: controller.signal });
    expect(result.error).toEqual({ kind: "network", cause: expect.objectContaining({ name: "AbortError" }) });
    expect(waits).toEqual([]);
    expect(stub.count("GET", PROFILE)).toBe(0);
  });

  it("stops waiting for a retry when the signal is aborted during the wait", async () => {
    stub.script("GET", PROFILE, answers.rateLimited("30"), answers.ok(profile));
    const controller = new AbortController();
    const waits: number[] = [];
    const api = createClient({
      baseUrl: stub.baseUrl,
      clientId: "dcc_stub",
      clientSecret: "dcs_stub",
      // A wait that never ends by itself: only the abort can end the call.
      sleep: (ms) => {
        waits.push(ms);
        controller.abort();
        return new Promise<void>(() => {});
      },
    });
    const result = await api.GET(PROFILE, { signal: controller.signal });
    expect(result.error).toEqual({ kind: "network", cause: expect.objectContaining({ name: "AbortError" }) });
    expect(waits).toEqual([30_000]);
    expect(stub.count("GET", PROFILE)).toBe(1);
  });
});

describe("attempt timeout", () => {
  const timedOut = { kind: "network", reason: "attempt_timeout", cause: expect.any(AttemptTimeoutError) };

  it("ends an attempt that gets no answer within attemptTimeoutMs and retries it like a dropped connection (GET)", async () => {
    stub.script("GET", PROFILE, answers.stall(), answers.ok(profile));
    const { api, waits } = client({ attemptTimeoutMs: 200 });
    const result = await api.GET(PROFILE);
    expect(result.data?.data).toEqual(profile);
    expect(stub.count("GET", PROFILE)).toBe(2);
    expect(waits).toEqual([125]);
  });

  it("reports attempts that all timed out as a network error with reason attempt_timeout", async () => {
    stub.script("GET", PROFILE, answers.stall());
    const { api, waits } = client({ attemptTimeoutMs: 100, retry: { maxRetries: 2 } });
    const result = await api.GET(PROFILE);
    expect(result.error).toEqual(timedOut);
    expect(result.response).toBeUndefined();
    const cause = (result.error as { cause: AttemptTimeoutError }).cause;
    expect(cause).toMatchObject({ name: "AttemptTimeoutError", timeoutMs: 100 });
    expect(stub.count("GET", PROFILE)).toBe(3);
    expect(waits).toHaveLength(2);
  });

  it("never retries a POST without an Idempotency-Key that timed out: it may have had its effect", async () => {
    stub.script("POST", WEBHOOK_ENDPOINTS, answers.stall());
    const { api, waits } = client({ attemptTimeoutMs: 100 });
    const result = await api.POST(WEBHOOK_ENDPOINTS, { body: endpointBody });
    expect(result.error).toEqual(timedOut);
    expect(stub.count("POST", WEBHOOK_ENDPOINTS)).toBe(1);
    expect(waits).toEqual([]);
  });

  it("retries a token request that timed out, even for a POST: nothing was sent yet", async () => {
    stub.script("POST", "/oauth/token", answers.stall(), answers.token());
    stub.script("POST", DEBTS, { status: 201, body: { error: false, message: "Debt created successfully", data: { id: "d1" } } });
    const { api } = client({ attemptTimeoutMs: 100 });
    const result = await api.POST(DEBTS, { body: { amount: 1, currency: "EUR" } });
    expect(result.response?.status).toBe(201);
    expect(stub.count("POST", "/oauth/token")).toBe(2);
    expect(stub.count("POST", DEBTS)).toBe(1);
  });

  it("keeps the caller's own deadline apart: an aborted call is not a timeout and is not retried", async () => {
    stub.script("GET", PROFILE, answers.stall());
    const { api, waits } = client({ attemptTimeoutMs: 60_000 });
    const controller = new AbortController();
    const arrived = stub.arrival("GET", PROFILE);
    const call = api.GET(PROFILE, { signal: controller.signal });
    await arrived;
    controller.abort();
    const result = await call;
    expect(result.error).toEqual({ kind: "network", cause: expect.objectContaining({ name: "AbortError" }) });
    expect(stub.count("GET", PROFILE)).toBe(1);
    expect(waits).toEqual([]);
  });

  it("clears its timer when the answer comes, and when the caller aborts: nothing is left to keep the process alive", async () => {
    // An in-process fetch, so that the only timers are the client's (undici keeps timers of its own).
    let stall = false;
    let sent = () => {};
    const fetch = (request: Request): Promise<Response> => {
      if (new URL(request.url).pathname === "/oauth/token") {
        return Promise.resolve(Response.json({ access_token: "dcat_local", token_type: "Bearer", expires_in: 3600 }));
      }
      if (!stall) return Promise.resolve(Response.json({ error: false, message: "ok", data: profile }));
      sent();
      return new Promise((_resolve, reject) => request.signal.addEventListener("abort", () => reject(request.signal.reason as Error)));
    };
    const { api } = client({ attemptTimeoutMs: 60_000, fetch });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      expect((await api.GET(PROFILE)).error).toBeUndefined();
      expect(vi.getTimerCount()).toBe(0);

      stall = true;
      const controller = new AbortController();
      const stalled = new Promise<void>((resolve) => (sent = resolve));
      const call = api.GET(PROFILE, { signal: controller.signal });
      await stalled;
      expect(vi.getTimerCount()).toBe(1);
      controller.abort();
      expect((await call).error).toEqual({ kind: "network", cause: expect.objectContaining({ name: "AbortError" }) });
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses a limit no timer can hold, rather than timing every attempt out at once", () => {
    for (const attemptTimeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31]) {
      expect(() => client({ attemptTimeoutMs })).toThrow(RangeError);
    }
    expect(() => client({ attemptTimeoutMs: false })).not.toThrow();
  });
});

describe("backoffDelay", () => {
  it("draws in [0, min(max, base * 2^retry)) and never below Retry-After", () => {
    const policy = defaultRetryPolicy;
    expect(backoffDelay(policy, 0, null, () => 0)).toBe(0);
    expect(backoffDelay(policy, 0, null, () => 0.999)).toBe(249);
    expect(backoffDelay(policy, 3, null, () => 0.999)).toBe(1998);
    expect(backoffDelay(policy, 10, null, () => 0.999)).toBe(7992);
    expect(backoffDelay(policy, 0, 5, () => 0.5)).toBe(5000);
  });
});
