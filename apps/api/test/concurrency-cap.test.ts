/**
 * The per-company cap on requests in progress (docs/decisions/0013) and the
 * graceful stop that lets a request in progress finish before the pool
 * closes. A request is held in progress by sending its body slowly: the body
 * is read after admission.
 */
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { admittedCreates, heldCreate, settle } from "./support/held-requests.ts";

const t = await startTestApi();
const DEBTS = "/external-api/v1/debts";
const PROFILE = "/external-api/v1/company/profile";

const startCappedApi = (cap: number) =>
  t.startAnotherApi({ environment: { MAX_CONCURRENT_REQUESTS_PER_COMPANY: String(cap) } });

const companyIdOf = async (companyName: string) =>
  Number((await t.db.selectFrom("companies").select("id").where("name", "=", companyName).executeTakeFirstOrThrow()).id);

describe("requests in progress per company", () => {
  it("refuses a company's request beyond the cap with 429 too_many_concurrent_requests, other companies unaffected", async () => {
    const api = await startCappedApi(2);
    try {
      const capped = await t.tenant("Capped Corp");
      const cappedToken = await t.token(capped);
      const otherToken = await t.token(await t.tenant("Other Corp"));
      const first = heldCreate(api.url, cappedToken, "held-1");
      const second = heldCreate(api.url, cappedToken, "held-2");

      await admittedCreates(t.db, await companyIdOf("Capped Corp"), 2);
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
    const held = heldCreate(api.url, token, "drained-1");
    await admittedCreates(t.db, await companyIdOf("Draining Corp"), 1);
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
