/**
 * The typed client against the real api: success data, the error union for
 * each status an integrator meets (400, 401, 403, 404, OAuth refusals), and
 * the 401 re-fetch of a token the server stopped accepting.
 */
import { describe, expect, it } from "vitest";
import { createClient, DebtCollectionError, unwrap } from "../src/index.ts";
import { recordingFetch } from "./support/recording-fetch.ts";
import { startSystem } from "./support/processes.ts";

const { baseUrl, tenant } = await startSystem("Typed Errors Ltd");
const credentials = { baseUrl, clientId: tenant.client_id, clientSecret: tenant.client_secret };

describe("createClient", () => {
  it("gets a token by itself and returns typed data", async () => {
    const wire = recordingFetch();
    const api = createClient({ ...credentials, fetch: wire.fetch });
    const result = await api.GET("/external-api/v1/company/profile");
    expect(result.error).toBeUndefined();
    expect(result.response?.status).toBe(200);
    expect(result.data?.data).toMatchObject({ id: tenant.company_id, name: "Typed Errors Ltd" });
    await api.GET("/external-api/v1/company/statistics");
    expect(wire.count("POST", "/oauth/token")).toBe(1);
    expect(wire.sent.filter((r) => r.path.startsWith("/external-api/")).map((r) => r.authorization)).toEqual([
      expect.stringMatching(/^Bearer dcat_/),
      wire.sent[1]?.authorization,
    ]);
  });

  it("decodes a 400 with its details", async () => {
    const api = createClient(credentials);
    const result = await api.GET("/external-api/v1/debts", { params: { query: { limit: 1000 } } });
    expect(result.error).toEqual({
      kind: "api",
      status: 400,
      code: 400,
      message: "Validation failed",
      details: { limit: expect.any(String) },
    });
  });

  it("decodes a 403 for a token without the operation's scope", async () => {
    const api = createClient({ ...credentials, scope: "company:read" });
    const result = await api.GET("/external-api/v1/debts");
    expect(result.error).toEqual({
      kind: "api",
      status: 403,
      code: 403,
      message: 'Required scope "debts:read" not found in token',
    });
  });

  it("decodes a 404 for an unknown id", async () => {
    const api = createClient(credentials);
    const result = await api.GET("/external-api/v1/debts/{id}", { params: { path: { id: "not-a-real-debt-id" } } });
    expect(result.error).toMatchObject({ kind: "api", status: 404, code: 404, message: expect.stringMatching(/^Debt not found/) });
  });

  it("decodes a 401 that survives the token re-fetch", async () => {
    // Every API call carries a corrupted token: the client re-fetches once, then reports the 401.
    const wire = recordingFetch((request) => {
      if (!request.url.includes("/external-api/")) return undefined;
      const broken = new Request(request, { headers: new Headers(request.headers) });
      broken.headers.set("authorization", "Bearer dcat_corrupted");
      return fetch(broken);
    });
    const api = createClient({ ...credentials, fetch: wire.fetch });
    const result = await api.GET("/external-api/v1/company/profile");
    expect(result.error).toEqual({
      kind: "api",
      status: 401,
      code: 401,
      message: "Authentication credentials are missing or invalid",
    });
    expect(wire.count("POST", "/oauth/token")).toBe(2);
    expect(wire.count("GET", "/external-api/v1/company/profile")).toBe(2);
  });

  it("re-fetches the token once when the api refuses it (revoked) and the call succeeds", async () => {
    const wire = recordingFetch();
    const api = createClient({ ...credentials, fetch: wire.fetch });
    const first = await api.tokens.get();
    const revoked = await fetch(`${baseUrl}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: first.value, client_id: tenant.client_id, client_secret: tenant.client_secret }).toString(),
    });
    expect(revoked.status).toBe(200);

    const result = await api.GET("/external-api/v1/company/profile");
    expect(result.error).toBeUndefined();
    expect(result.data?.data.id).toBe(tenant.company_id);
    const profileCalls = wire.sent.filter((r) => r.path === "/external-api/v1/company/profile");
    expect(profileCalls).toHaveLength(2);
    expect(profileCalls[0]?.authorization).toBe(`Bearer ${first.value}`);
    expect(profileCalls[1]?.authorization).not.toBe(`Bearer ${first.value}`);
    expect(wire.count("POST", "/oauth/token")).toBe(2);
  });

  it("re-sends a POST after a 401 too: the api refused it before doing anything", async () => {
    const wire = recordingFetch();
    const api = createClient({ ...credentials, fetch: wire.fetch });
    const first = await api.tokens.get();
    await fetch(`${baseUrl}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: first.value, client_id: tenant.client_id, client_secret: tenant.client_secret }).toString(),
    });
    const created = await api.POST("/external-api/v1/debts", {
      body: { amount: 10, currency: "EUR", internal_id: "AFTER-401", firstname: "Ada", lastname: "Lovelace" },
    });
    expect(created.error).toBeUndefined();
    expect(created.response?.status).toBe(201);
    expect(wire.count("POST", "/external-api/v1/debts")).toBe(2);
    // The re-sent request is the same call: the same Idempotency-Key.
    const keys = wire.sent.filter((request) => request.path === "/external-api/v1/debts").map((request) => request.idempotencyKey);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    const listed = unwrap(await api.GET("/external-api/v1/debts", { params: { query: { search: "AFTER-401" } } }));
    expect(listed.pagination.total).toBe(1);
  });

  it("sends a caller's Idempotency-Key as it is and returns the api's 400 naming the header when it is no key, once, writing nothing", async () => {
    const wire = recordingFetch();
    const api = createClient({ ...credentials, fetch: wire.fetch, sleep: async () => {} });
    const refused = await api.POST("/external-api/v1/debts", {
      body: { amount: 10, currency: "EUR", internal_id: "BAD-KEY", lastname: "Keyless" },
      headers: { "Idempotency-Key": "two words" },
    });
    expect(refused.error).toEqual({
      kind: "api",
      status: 400,
      code: 400,
      message: "Validation failed",
      details: { "Idempotency-Key": expect.any(String) },
    });
    expect(wire.sent.filter((request) => request.path === "/external-api/v1/debts").map((request) => request.idempotencyKey)).toEqual([
      "two words",
    ]);
    const listed = unwrap(await api.GET("/external-api/v1/debts", { params: { query: { search: "BAD-KEY" } } }));
    expect(listed.pagination.total).toBe(0);
  });

  it("creates once when a creation's answer is lost: the retry carries the call's Idempotency-Key and gets the first answer", async () => {
    let lost = 0;
    const api = createClient({
      ...credentials,
      sleep: async () => {},
      // The first creation reaches the api and commits; its answer is then lost, as on a dropped connection.
      fetch: async (request) => {
        const response = await globalThis.fetch(request);
        if (new URL(request.url).pathname === "/external-api/v1/debts" && request.method === "POST" && lost++ === 0) {
          await response.body?.cancel();
          throw new TypeError("fetch failed", { cause: new Error("socket hang up") });
        }
        return response;
      },
    });
    const created = await api.POST("/external-api/v1/debts", {
      body: { amount: 9137.53, currency: "EUR", firstname: "Grace", lastname: "Hopper" },
    });
    expect(created.error).toBeUndefined();
    expect(created.response?.status).toBe(201);
    expect(created.response?.headers.get("idempotent-replayed")).toBe("true");
    expect(lost).toBe(2);
    const listed = unwrap(await api.GET("/external-api/v1/debts", { params: { query: { search: "9137.53" } } }));
    expect(listed.pagination.total).toBe(1);
    expect(listed.data[0]?.id).toBe(created.data?.data.id);
  });

  it("decodes OAuth refusals of the token endpoint", async () => {
    const wrongSecret = createClient({ ...credentials, clientSecret: "dcs_wrong" });
    expect((await wrongSecret.GET("/external-api/v1/company/profile")).error).toEqual({
      kind: "oauth",
      status: 401,
      error: "invalid_client",
      description: expect.any(String),
    });
    const unknownScope = createClient({ ...credentials, scope: "debts:read galaxy:write" });
    expect((await unknownScope.GET("/external-api/v1/company/profile")).error).toMatchObject({
      kind: "oauth",
      status: 400,
      error: "invalid_scope",
    });
  });

  it("unwrap throws a DebtCollectionError carrying the decoded error", async () => {
    const api = createClient({ ...credentials, scope: "company:read" });
    const thrown = await api.GET("/external-api/v1/debts").then(unwrap, (error: unknown) => error).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(DebtCollectionError);
    expect((thrown as DebtCollectionError).error).toMatchObject({ kind: "api", status: 403 });
    expect((thrown as DebtCollectionError).message).toBe('403 Required scope "debts:read" not found in token');
  });
});
