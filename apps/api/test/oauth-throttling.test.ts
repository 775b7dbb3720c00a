/**
 * Throttling of failed authentication (docs/decisions/0203): client secrets
 * at the token endpoint (10 per client id, 30 per source address, per 15
 * minutes) and passwords on the sign-in page (10 per account, 30 per
 * address). Counters live in rate_limit_counters; time is the manual clock.
 */
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { authorizePath, csrfTokenOf, formAgent, registerClient } from "./support/oauth-flow.ts";

const t = await startTestApi();
const acme = await t.tenant("Acme Collections");
const WINDOW = 15 * 60 * 1000;

/** Moves the clock to the start of the next 15-minute window, so each test starts with empty counters. */
const nextWindow = () => {
  const now = t.clock.now().getTime();
  t.clock.set(new Date(Math.floor(now / WINDOW) * WINDOW + WINDOW));
};
const windowStart = () => new Date(Math.floor(t.clock.now().getTime() / WINDOW) * WINDOW);
const secondsToWindowEnd = () => {
  const now = t.clock.now().getTime();
  return Math.ceil((Math.floor(now / WINDOW) * WINDOW + WINDOW - now) / 1000);
};

const credentials = (client: { client_id: string; client_secret: string }, secret = client.client_secret) =>
  t.tokenResponse({ grant_type: "client_credentials", client_id: client.client_id, client_secret: secret });

describe("failed client authentication", () => {
  it("answers the 11th failure for one client id with 429 slow_down and Retry-After; the next window starts over", async () => {
    nextWindow();
    const client = await registerClient(t, acme, { redirectUris: [], name: "Throttled" });
    t.clock.advance(60_000);
    for (let attempt = 1; attempt <= 10; attempt++) expect((await credentials(client, "dcs_wrong")).status).toBe(401);
    const refused = await credentials(client, "dcs_wrong");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe(String(secondsToWindowEnd()));
    expect(refused.headers.get("retry-after")).toBe("840");
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect(await expectContract(refused, "post", "/oauth/token")).toEqual({
      error: "slow_down",
      error_description: "Too many failed client authentications; retry after the time in Retry-After",
    });
    // The client id is public: its throttle must not lock the real client out.
    expect((await credentials(client)).status).toBe(200);
    const counter = await t.db
      .selectFrom("rate_limit_counters")
      .selectAll()
      .where("key", "=", `oauth-client-auth-failures:client:${client.client_id}`)
      .executeTakeFirstOrThrow();
    expect(counter.count).toBe(11);
    expect(counter.expires_at.getTime() - counter.window_start.getTime()).toBe(WINDOW);

    nextWindow();
    expect((await credentials(client, "dcs_wrong")).status).toBe(401);
  });

  it("refuses every attempt from an address after 30 failures, valid or not, until the window ends", async () => {
    nextWindow();
    const client = await registerClient(t, acme, { redirectUris: [], name: "Bystander" });
    for (let attempt = 1; attempt <= 30; attempt++) {
      expect((await credentials({ client_id: `dcc_guess_${attempt}`, client_secret: "dcs_guess" })).status).toBe(401);
    }
    const refused = await credentials({ client_id: "dcc_guess_31", client_secret: "dcs_guess" });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe(String(secondsToWindowEnd()));
    expect((await credentials(client)).status).toBe(429);
    const revoke = await t.request("/oauth/revoke", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        client_id: client.client_id,
        client_secret: client.client_secret,
        token: "x",
      }).toString(),
    });
    expect(revoke.status).toBe(429);
    const slowDown = {
      error: "slow_down",
      error_description: "Too many failed client authentications; retry after the time in Retry-After",
    };
    expect(await expectContract(revoke, "post", "/oauth/revoke")).toEqual(slowDown);
    // The alias of the token endpoint shares the throttle.
    const alias = await t.tokenResponse(
      { grant_type: "client_credentials", client_id: client.client_id, client_secret: client.client_secret },
      {},
      "/token",
    );
    expect(alias.status).toBe(429);
    expect(alias.headers.get("retry-after")).toBe(String(secondsToWindowEnd()));
    expect(await expectContract(alias, "post", "/token")).toEqual(slowDown);

    t.clock.advance(secondsToWindowEnd() * 1000);
    expect((await credentials(client)).status).toBe(200);
  });

  it("counts concurrent failures exactly (one upsert per failure)", async () => {
    nextWindow();
    const client = await registerClient(t, acme, { redirectUris: [], name: "Concurrent" });
    const responses = await Promise.all(Array.from({ length: 14 }, () => credentials(client, "dcs_wrong")));
    expect(responses.filter((response) => response.status === 429)).toHaveLength(4);
    expect(responses.filter((response) => response.status === 401)).toHaveLength(10);
    const counter = await t.db
      .selectFrom("rate_limit_counters")
      .select("count")
      .where("key", "=", `oauth-client-auth-failures:client:${client.client_id}`)
      .executeTakeFirstOrThrow();
    expect(counter.count).toBe(14);
  });
});

describe("failed sign-in on the authorization page", () => {
  const redirectUri = "https://ledger-sync.example/oauth/callback";
  const parameters = async () => {
    const client = await registerClient(t, acme, { redirectUris: [redirectUri], name: "Ledger Sync" });
    return { response_type: "code", client_id: client.client_id, redirect_uri: redirectUri, state: "s" };
  };
  /** The sign-in failure counters of the current window. */
  const signInCounts = () =>
    t.db
      .selectFrom("rate_limit_counters")
      .select(["key", "count"])
      .where("key", "like", "oauth-sign-in-failures:%")
      .where("window_start", "=", windowStart())
      .execute();
  const attempt = async (request: Record<string, string>, email: string, password: string) => {
    const agent = formAgent(t);
    const csrf = csrfTokenOf(await (await agent.get(authorizePath(request))).text());
    return agent.post("/oauth/authorize", { ...request, csrf_token: csrf, action: "sign_in", email, password });
  };

  it("refuses the 11th attempt on one account, even with the right password, until the window ends", async () => {
    nextWindow();
    const request = await parameters();
    for (let failure = 1; failure <= 10; failure++) {
      expect((await attempt(request, acme.user_email, "wrong password")).status).toBe(400);
    }
    const refused = await attempt(request, acme.user_email, acme.user_password);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe(String(secondsToWindowEnd()));
    expect(refused.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await refused.text()).toContain("Too many failed sign-in attempts. Try again in 15 minutes.");
    // The account key is a hash: no e-mail address in the counters table.
    const keys = await t.db.selectFrom("rate_limit_counters").select("key").execute();
    expect(keys.some((row) => row.key.includes("@"))).toBe(false);

    t.clock.advance(secondsToWindowEnd() * 1000);
    expect((await attempt(request, acme.user_email, acme.user_password)).status).toBe(303);
  });

  it("checks at most 10 passwords of one account when the guesses arrive at once", async () => {
    nextWindow();
    const request = await parameters();
    const agents = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const agent = formAgent(t);
        return { agent, csrf: csrfTokenOf(await (await agent.get(authorizePath(request))).text()) };
      }),
    );
    const responses = await Promise.all(
      agents.map(({ agent, csrf }, i) =>
        agent.post("/oauth/authorize", {
          ...request,
          csrf_token: csrf,
          action: "sign_in",
          email: acme.user_email,
          password: `wrong guess ${i}`,
        }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 400)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    // The refused guesses were never checked, so they are not counted as failures.
    const counts = await signInCounts();
    expect(counts.find((row) => row.key.startsWith("oauth-sign-in-failures:account:"))?.count).toBe(10);
    expect(counts.find((row) => row.key.startsWith("oauth-sign-in-failures:address:"))?.count).toBe(10);
    expect((await attempt(request, acme.user_email, acme.user_password)).status).toBe(429);
  });

  it("does not count a successful sign-in against the account or the address", async () => {
    nextWindow();
    const request = await parameters();
    expect((await attempt(request, acme.user_email, "wrong password")).status).toBe(400);
    expect((await attempt(request, acme.user_email, acme.user_password)).status).toBe(303);
    const counts = await signInCounts();
    expect(counts.map((row) => row.count)).toEqual([1, 1]);
  });

  it("refuses an address after 30 failures across accounts", async () => {
    nextWindow();
    const request = await parameters();
    for (let failure = 1; failure <= 30; failure++) {
      expect((await attempt(request, `nobody${failure}@acme.example`, "guess")).status).toBe(400);
    }
    expect((await attempt(request, acme.user_email, acme.user_password)).status).toBe(429);
    nextWindow();
    expect((await attempt(request, acme.user_email, acme.user_password)).status).toBe(303);
  });
});
