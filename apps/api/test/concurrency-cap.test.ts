/**
 * The per-company cap on requests in progress (docs/decisions/0013) and the
 * graceful stop that lets a request in progress finish before the pool
 * closes. A request is held in progress by sending its body slowly: the body
 * is read after admission.
 */
import { request as httpRequest } from "node:http";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/logger.ts";
import { startApi, type RunningApi } from "../src/server.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();
const DEBTS = "/external-api/v1/debts";
const PROFILE = "/external-api/v1/company/profile";

const startCappedApi = (cap: number) =>
  startApi({
    config: loadConfig({ NODE_ENV: "test", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent", MAX_CONCURRENT_REQUESTS_PER_COMPANY: String(cap) }),
    databaseUrl: t.databaseUrl,
    clock: t.clock,
    logger: createLogger("silent", new Writable({ write: (_chunk, _encoding, callback) => callback() })),
  });

const debtBody = (internalId: string) =>
  JSON.stringify({ firstname: "Held", lastname: "Open", email: "held@example.com", amount: 10, currency: "EUR", internal_id: internalId });

/** A POST /debts whose body is sent only when `finish` is called; resolves with the status and body. */
const heldCreate = (api: RunningApi, token: string, internalId: string) => {
  const body = debtBody(internalId);
  const url = new URL(`${api.url}${DEBTS}`);
  let answered: (value: { status: number; body: string }) => void = () => {};
  const response = new Promise<{ status: number; body: string }>((resolve) => (answered = resolve));
  const request = httpRequest(
    { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
    (incoming) => {
      let text = "";
      incoming.on("data", (chunk: Buffer) => (text += chunk.toString()));
      incoming.on("end", () => answered({ status: incoming.statusCode ?? 0, body: text }));
    },
  );
  request.write(body.slice(0, 10));
  return { response, finish: () => request.end(body.slice(10)) };
};

/**
 * Waits until `count` createDebt requests of the company have been admitted:
 * admission counts them in `rate_limit_counters`. (A probe request would take
 * a place of the cap itself, and could push a held request out.)
 */
const admittedCreates = async (companyName: string, count: number) => {
  const { id } = await t.db.selectFrom("companies").select("id").where("name", "=", companyName).executeTakeFirstOrThrow();
  const deadline = Date.now() + 10_000;
  for (;;) {
    const counter = await t.db
      .selectFrom("rate_limit_counters")
      .select("count")
      .where("key", "=", `company:${id}:createDebt`)
      .executeTakeFirst();
    if ((counter?.count ?? 0) >= count) return;
    if (Date.now() > deadline) throw new Error(`${companyName}: ${counter?.count ?? 0} of ${count} requests admitted`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** Gives an admitted request time to take its place (or a stop time to begin). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe("requests in progress per company", () => {
  it("refuses a company's request beyond the cap with 429 too_many_concurrent_requests, other companies unaffected", async () => {
    const api = await startCappedApi(2);
    try {
      const capped = await t.tenant("Capped Corp");
      const cappedToken = await t.token(capped);
      const otherToken = await t.token(await t.tenant("Other Corp"));
      const first = heldCreate(api, cappedToken, "held-1");
      const second = heldCreate(api, cappedToken, "held-2");

      await admittedCreates("Capped Corp", 2);
      await settle();

      const refused = await fetch(`${api.url}${PROFILE}`, { headers: { authorization: `Bearer ${cappedToken}` } });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(await expectContract(refused, "get", PROFILE)).toEqual({
        error: true,
        message: "Too many concurrent requests",
        code: 429,
        error_code: "too_many_concurrent_requests",
      });
      expect((await fetch(`${api.url}${PROFILE}`, { headers: { authorization: `Bearer ${otherToken}` } })).status).toBe(200);

      first.finish();
      second.finish();
      expect((await first.response).status).toBe(201);
      expect((await second.response).status).toBe(201);
      // Released: the company may send again.
      expect((await fetch(`${api.url}${PROFILE}`, { headers: { authorization: `Bearer ${cappedToken}` } })).status).toBe(200);
    } finally {
      await api.stop();
    }
  });

  it("releases the place of a request that failed", async () => {
    const api = await startCappedApi(1);
    try {
      const token = await t.token(await t.tenant("Failing Corp"));
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      for (let i = 0; i < 3; i++) {
        expect((await fetch(`${api.url}${DEBTS}`, { method: "POST", headers, body: "{not json" })).status).toBe(400);
      }
      expect((await fetch(`${api.url}${PROFILE}`, { headers })).status).toBe(200);
    } finally {
      await api.stop();
    }
  });
});

describe("graceful stop", () => {
  it("lets a request in progress finish and write before the pool closes", async () => {
    const api = await startCappedApi(10);
    const token = await t.token(await t.tenant("Draining Corp"));
    const held = heldCreate(api, token, "drained-1");
    await admittedCreates("Draining Corp", 1);
    let stopped = false;
    const stopping = api.stop().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    held.finish();
    expect((await held.response).status).toBe(201);
    await stopping;
    const written = await t.db.selectFrom("debts").select("id").where("internal_id", "=", "drained-1").execute();
    expect(written).toHaveLength(1);
  });
});
