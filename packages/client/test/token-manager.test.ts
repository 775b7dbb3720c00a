/**
 * The token cache against the real token endpoint, with an injected clock:
 * reuse until 60 s before expiry, renewal after, one request for concurrent
 * callers, and `invalidate` only forgetting the token it is given.
 */
import { describe, expect, it } from "vitest";
import { createTokenManager, DebtCollectionError } from "../src/index.ts";
import { startSystem } from "./support/processes.ts";
import { recordingFetch } from "./support/recording-fetch.ts";
import { startStub } from "./support/stub-server.ts";

const { baseUrl, tenant } = await startSystem("Token Cache GmbH");

const manualClock = (start: number) => {
  let now = start;
  return { now: () => now, advance: (seconds: number) => (now += seconds * 1000) };
};

const setup = (options: { scope?: string } = {}) => {
  const wire = recordingFetch();
  const clock = manualClock(Date.parse("2026-11-21T10:00:00Z"));
  const tokens = createTokenManager({
    baseUrl,
    clientId: tenant.client_id,
    clientSecret: tenant.client_secret,
    fetch: wire.fetch,
    clock,
    ...options,
  });
  return { wire, clock, tokens, requests: () => wire.count("POST", "/oauth/token") };
};

describe("createTokenManager", () => {
  it("sends the client_credentials grant with the requested scope and caches the token", async () => {
    const { wire, tokens, requests } = setup({ scope: "debts:read company:read" });
    const first = await tokens.get();
    expect(first.value).toMatch(/^dcat_/);
    expect(first.scope).toBe("debts:read company:read");
    expect(Object.fromEntries(new URLSearchParams(wire.sent[0]?.body))).toEqual({
      grant_type: "client_credentials",
      client_id: tenant.client_id,
      client_secret: tenant.client_secret,
      scope: "debts:read company:read",
    });
    expect(await tokens.get()).toBe(first);
    expect(requests()).toBe(1);
  });

  it("renews 60 s before expiry, not earlier", async () => {
    const { clock, tokens, requests } = setup();
    const first = await tokens.get();
    expect(first.expiresAt).toBe(clock.now() + 3600_000);
    clock.advance(3600 - 61);
    expect(await tokens.get()).toBe(first);
    expect(requests()).toBe(1);
    clock.advance(2);
    const renewed = await tokens.get();
    expect(renewed.value).not.toBe(first.value);
    expect(renewed.expiresAt).toBe(clock.now() + 3600_000);
    expect(requests()).toBe(2);
    // The renewed token is accepted by the api.
    const profile = await fetch(`${baseUrl}/external-api/v1/company/profile`, { headers: { authorization: `Bearer ${renewed.value}` } });
    expect(profile.status).toBe(200);
  });

  it("honours a custom skew", async () => {
    const wire = recordingFetch();
    const clock = manualClock(0);
    const tokens = createTokenManager({ baseUrl, clientId: tenant.client_id, clientSecret: tenant.client_secret, fetch: wire.fetch, clock, refreshSkewSeconds: 600 });
    const first = await tokens.get();
    clock.advance(3000 - 1);
    expect(await tokens.get()).toBe(first);
    clock.advance(1);
    expect((await tokens.get()).value).not.toBe(first.value);
  });

  it("shares one in-flight request between concurrent callers", async () => {
    const { clock, tokens, requests } = setup();
    const burst = await Promise.all(Array.from({ length: 8 }, () => tokens.get()));
    expect(new Set(burst.map((token) => token.value)).size).toBe(1);
    expect(requests()).toBe(1);
    clock.advance(3600);
    const after = await Promise.all(Array.from({ length: 8 }, () => tokens.get()));
    expect(new Set(after.map((token) => token.value)).size).toBe(1);
    expect(requests()).toBe(2);
  });

  it("invalidate forgets only the token it is given", async () => {
    const { tokens, requests } = setup();
    const first = await tokens.get();
    tokens.invalidate({ ...first, value: "dcat_someone-elses" });
    expect(await tokens.get()).toBe(first);
    tokens.invalidate(first);
    const second = await tokens.get();
    expect(second.value).not.toBe(first.value);
    expect(requests()).toBe(2);
  });

  it("rejects with an OAuthError and tries again on the next call", async () => {
    const wire = recordingFetch();
    const tokens = createTokenManager({ baseUrl, clientId: tenant.client_id, clientSecret: "dcs_wrong", fetch: wire.fetch });
    const failure = await tokens.get().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DebtCollectionError);
    expect((failure as DebtCollectionError).error).toEqual({
      kind: "oauth",
      status: 401,
      error: "invalid_client",
      description: expect.any(String),
    });
    await tokens.get().catch(() => undefined);
    expect(wire.count("POST", "/oauth/token")).toBe(2);
  });
});

describe("a short-lived token", () => {
  it("is renewed at half its life when that comes before the skew", async () => {
    const stub = await startStub();
    stub.script("POST", "/oauth/token", {
      status: 200,
      body: { access_token: "dcat_short", token_type: "Bearer", expires_in: 60, scope: "debts:read" },
    });
    const clock = manualClock(0);
    const tokens = createTokenManager({ baseUrl: stub.baseUrl, clientId: "dcc_x", clientSecret: "dcs_x", clock });
    await tokens.get();
    clock.advance(29);
    await tokens.get();
    expect(stub.count("POST", "/oauth/token")).toBe(1);
    clock.advance(1);
    await tokens.get();
    expect(stub.count("POST", "/oauth/token")).toBe(2);
  });
});
