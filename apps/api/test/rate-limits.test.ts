import { endpoints, rateLimits, rateLimitSubject } from "@dc/contract";
import { describe, expect, it } from "vitest";
import { createClient } from "../src/admin/oauth-clients.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi, TEST_START } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";
import { CHUNK_PATH, rowsBody, snapshotTestKit } from "./support/snapshots.ts";

const t = await startTestApi();
const PROFILE = "/external-api/v1/company/profile";

/** Sets the company's used budget for an operation in the current hour, as if that many requests had been made. */
const spend = async (companyId: number, subject: string, count: number) => {
  const now = t.clock.now().getTime();
  const windowStart = new Date(Math.floor(now / 3_600_000) * 3_600_000);
  await t.db
    .insertInto("rate_limit_counters")
    .values({ key: `company:${companyId}:${subject}`, window_start: windowStart, count, expires_at: new Date(windowStart.getTime() + 3_600_000) })
    .onConflict((conflict) => conflict.columns(["key", "window_start"]).doUpdateSet({ count }))
    .execute();
};

const companyIdOf = async (name: string) =>
  (await t.db.selectFrom("companies").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;

describe("per-company rate limits (contract part 8)", () => {
  it("answer the 1,000th request of the hour and refuse the 1,001st with 429 and the RateLimit headers", async () => {
    const tenant = await t.tenant("Busy Corp");
    const token = await t.token(tenant);
    const companyId = await companyIdOf("Busy Corp");
    await spend(companyId, "getCompanyProfile", 998);

    const last = await t.get(PROFILE, token);
    expect(last.status).toBe(200);
    expect(last.headers.get("ratelimit-limit")).toBe("1000");
    expect(last.headers.get("ratelimit-remaining")).toBe("1");
    // The test clock stands at 10:00:00, the start of the window.
    expect(last.headers.get("ratelimit-reset")).toBe("3600");

    expect((await t.get(PROFILE, token)).headers.get("ratelimit-remaining")).toBe("0");

    const refused = await t.get(PROFILE, token);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("3600");
    expect(refused.headers.get("ratelimit-limit")).toBe("1000");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(await expectContract(refused, "get", PROFILE)).toEqual({
      error: true,
      message: "Rate limit exceeded",
      code: 429,
      error_code: "rate_limited",
    });
  });

  it("count one contract operation served under two methods or paths on one budget", async () => {
    const tenant = await t.tenant("Shared Budget Corp");
    const token = await t.token(tenant);
    const companyId = await companyIdOf("Shared Budget Corp");
    const api = jsonApi(t.request);

    // The creditor update accepts PUT and PATCH (contract 9.4): one update budget.
    await spend(companyId, "updateCreditor", 999);
    const put = await api.put(`/external-api/v1/creditors/${tenant.creditor_id}`, token, { city: "Lyon" });
    expect(put.status).toBe(200);
    expect(put.headers.get("ratelimit-remaining")).toBe("0");
    expect((await api.patch(`/external-api/v1/creditors/${tenant.creditor_id}`, token, { city: "Nantes" })).status).toBe(429);

    // Debts by creditor and its alias path are one list.
    await spend(companyId, "listDebtsByCreditor", 999);
    const alias = await api.get(`/external-api/v1/debts/creditor/${tenant.creditor_id}`, token);
    expect(alias.status).toBe(200);
    expect(alias.headers.get("ratelimit-remaining")).toBe("0");
    expect((await api.get(`/external-api/v1/debts/by-creditor/${tenant.creditor_id}`, token)).status).toBe(429);

    // Other operations keep their own budgets.
    expect((await api.get(`/external-api/v1/creditors/${tenant.creditor_id}`, token)).headers.get("ratelimit-remaining")).toBe("999");
  });

  it("count the followup and debt updates, each one operation under PUT and PATCH, on one budget each", async () => {
    const tenant = await t.tenant("Update Budget Corp");
    const token = await t.token(tenant);
    const companyId = await companyIdOf("Update Budget Corp");
    const api = jsonApi(t.request);
    // Counted at admission, before the id is looked up: an unknown id spends the budget like a known one.
    for (const [budget, path] of [
      ["updateFollowup", "/external-api/v1/followups/unknown-followup"],
      ["updateDebt", "/external-api/v1/debts/unknown-debt"],
    ] as const) {
      await spend(companyId, budget, 999);
      const put = await api.put(path, token, { notes: "x" });
      expect(put.status).not.toBe(429);
      expect(put.headers.get("ratelimit-remaining")).toBe("0");
      const patch = await api.patch(path, token, { notes: "x" });
      expect(patch.status).toBe(429);
      expect(patch.headers.get("ratelimit-remaining")).toBe("0");
    }
  });

  it("give each company its own budget", async () => {
    const other = await t.tenant("Quiet Corp");
    const response = await t.get(PROFILE, await t.token(other));
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit-remaining")).toBe("999");
  });

  it("open a new budget when the hour turns", async () => {
    const tenant = await t.tenant("Hourly Corp");
    const token = await t.token(tenant);
    await spend(await companyIdOf("Hourly Corp"), "getCompanyProfile", 1000);
    expect((await t.get(PROFILE, token)).status).toBe(429);
    t.clock.set(new Date(TEST_START.getTime() + 3_600_000));
    const next = await t.get(PROFILE, await t.token(tenant));
    expect(next.status).toBe(200);
    expect(next.headers.get("ratelimit-remaining")).toBe("999");
  });

  it("share one budget between api processes over the same database", async () => {
    const second = await t.startAnotherApi();
    try {
      const tenant = await t.tenant("Spread Corp");
      const token = await t.token(tenant);
      await spend(await companyIdOf("Spread Corp"), "getCompanyProfile", 998);
      const headers = { authorization: `Bearer ${token}` };
      expect((await fetch(`${t.api.url}${PROFILE}`, { headers })).status).toBe(200);
      expect((await fetch(`${second.url}${PROFILE}`, { headers })).status).toBe(200);
      expect((await fetch(`${second.url}${PROFILE}`, { headers })).status).toBe(429);
      expect((await fetch(`${t.api.url}${PROFILE}`, { headers })).status).toBe(429);
    } finally {
      await second.stop();
    }
  });

  it("do not count requests refused before authentication", async () => {
    const tenant = await t.tenant("Anonymous Corp");
    for (let i = 0; i < 3; i++) expect((await t.get(PROFILE, "not-a-token")).status).toBe(401);
    const response = await t.get(PROFILE, await t.token(tenant));
    expect(response.headers.get("ratelimit-remaining")).toBe("999");
  });

  it("give each of many concurrent requests its own place in the budget, and revoke at once", async () => {
    const tenant = await t.tenant("Burst Corp");
    const token = await t.token(tenant);
    const companyId = await companyIdOf("Burst Corp");
    await spend(companyId, "getCompanyProfile", 990);

    const responses = await Promise.all(Array.from({ length: 40 }, () => t.get(PROFILE, token)));
    const answered = responses.filter((response) => response.status === 200);
    expect(answered).toHaveLength(10);
    expect(responses.filter((response) => response.status === 429)).toHaveLength(30);
    // Ten distinct positions: remaining 9, 8, ..., 0, each given once.
    expect(answered.map((response) => Number(response.headers.get("ratelimit-remaining"))).sort((a, b) => a - b)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    const counter = await t.db
      .selectFrom("rate_limit_counters")
      .select("count")
      .where("key", "=", `company:${companyId}:getCompanyProfile`)
      .executeTakeFirstOrThrow();
    expect(counter.count).toBe(1030);

    await t.db.updateTable("oauth_access_tokens").set({ revoked_at: t.clock.now() }).where("company_id", "=", companyId).execute();
    const afterRevocation = await Promise.all(Array.from({ length: 5 }, () => t.get(PROFILE, token)));
    expect(afterRevocation.map((response) => response.status)).toEqual([401, 401, 401, 401, 401]);
  });
});

describe("what is counted, whose budget it is, and when it ends (contract part 8, docs/decisions/0011, 0012, 0305)", () => {
  const CREDITORS = "/external-api/v1/creditors";

  /** A second OAuth client of the company of `tenant`, and a token of it. */
  const secondClientToken = async (companyName: string) => {
    const client = await createClient(t.db, {
      companyId: await companyIdOf(companyName),
      name: "Second integration",
      scopes: ["company:read", "creditors:read"],
      redirectUris: [],
    });
    const response = await t.tokenResponse({
      grant_type: "client_credentials",
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { access_token: string }).access_token;
  };

  it("count a refused 4xx, but not a 401 before authentication nor a 403 for a missing scope", async () => {
    const tenant = await t.tenant("Counting Corp");
    const token = await t.token(tenant);
    const withoutScope = await t.token(tenant, "debts:read");
    expect((await t.get(CREDITORS, "not-a-token")).status).toBe(401);
    expect((await t.get(CREDITORS)).status).toBe(401);
    const forbidden = await t.get(CREDITORS, withoutScope);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("ratelimit-remaining")).toBeNull();
    const invalid = await t.get(`${CREDITORS}?limit=101`, token);
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get("ratelimit-remaining")).toBe("999");
    const answered = await t.get(CREDITORS, token);
    expect(answered.status).toBe(200);
    expect(answered.headers.get("ratelimit-remaining")).toBe("998");
  });

  it("share one budget between two clients of a company, and not with another company", async () => {
    const tenant = await t.tenant("Two Clients Corp");
    const first = await t.token(tenant);
    const second = await secondClientToken("Two Clients Corp");
    const other = await t.token(await t.tenant("Neighbour Corp"));
    await spend(await companyIdOf("Two Clients Corp"), "getCompanyProfile", 998);
    expect((await t.get(PROFILE, first)).headers.get("ratelimit-remaining")).toBe("1");
    expect((await t.get(PROFILE, second)).headers.get("ratelimit-remaining")).toBe("0");
    expect((await t.get(PROFILE, first)).status).toBe(429);
    expect((await t.get(PROFILE, second)).status).toBe(429);
    const neighbour = await t.get(PROFILE, other);
    expect(neighbour.status).toBe(200);
    expect(neighbour.headers.get("ratelimit-remaining")).toBe("999");
  });

  it("let exactly the places left through when 50 requests of two clients on two api processes arrive at once", async () => {
    const second = await t.startAnotherApi();
    try {
      const tenant = await t.tenant("Edge Corp");
      const companyId = await companyIdOf("Edge Corp");
      const tokens = [await t.token(tenant), await secondClientToken("Edge Corp")];
      const neighbour = await t.token(await t.tenant("Edge Neighbour Corp"));
      await spend(companyId, "getCompanyProfile", 990);
      const urls = [t.api.url, second.url];
      const send = (url: string, token: string) => fetch(`${url}${PROFILE}`, { headers: { authorization: `Bearer ${token}` } });
      const [burst, neighbours] = await Promise.all([
        Promise.all(Array.from({ length: 50 }, (_, i) => send(urls[i % 2]!, tokens[Math.floor(i / 2) % 2]!))),
        Promise.all(Array.from({ length: 10 }, (_, i) => send(urls[i % 2]!, neighbour))),
      ]);
      const answered = burst.filter((response) => response.status === 200);
      expect(burst.filter((response) => response.status === 429)).toHaveLength(40);
      expect(answered.map((response) => Number(response.headers.get("ratelimit-remaining"))).sort((a, b) => a - b)).toEqual([
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
      ]);
      expect(neighbours.map((response) => response.status)).toEqual(Array.from({ length: 10 }, () => 200));
      const counter = await t.db
        .selectFrom("rate_limit_counters")
        .select("count")
        .where("key", "=", `company:${companyId}:getCompanyProfile`)
        .executeTakeFirstOrThrow();
      expect(counter.count).toBe(1040);
    } finally {
      await second.stop();
    }
  });

  it("give Retry-After and RateLimit-Reset as the seconds left in the hour, and a new budget on the hour", async () => {
    const before = t.clock.now();
    try {
      const hour = Math.floor(before.getTime() / 3_600_000) * 3_600_000;
      t.clock.set(new Date(hour + 1_800_000 + 1));
      // Issued now, the token outlives the hour's end.
      const token = await t.token(await t.tenant("Boundary Corp"));
      await spend(await companyIdOf("Boundary Corp"), "getCompanyProfile", 999);
      const last = await t.get(PROFILE, token);
      expect(last.status).toBe(200);
      expect(last.headers.get("ratelimit-reset")).toBe("1800");
      t.clock.set(new Date(hour + 3_600_000 - 500));
      const refused = await t.get(PROFILE, token);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(refused.headers.get("ratelimit-reset")).toBe("1");
      t.clock.set(new Date(hour + 3_600_000));
      const next = await t.get(PROFILE, token);
      expect(next.status).toBe(200);
      expect(next.headers.get("ratelimit-remaining")).toBe("999");
      expect(next.headers.get("ratelimit-reset")).toBe("3600");
    } finally {
      t.clock.set(before);
    }
  });
});

describe("every budgeted operation, its budget spent (found by walking `endpoints`)", () => {
  const budgeted = Object.values(endpoints).flatMap((declared) => {
    const subject = rateLimitSubject(declared);
    const limit = rateLimits[declared.rateLimit];
    return declared.scope === null || subject === undefined || limit === null ? [] : [{ declared, subject, limit }];
  });

  it("covers the contract's budgeted operations", () => {
    expect(budgeted.map(({ declared }) => declared.operationId)).toEqual(
      expect.arrayContaining(["getCompanyProfile", "createDebt", "submitSnapshot", "uploadSnapshotChunk"]),
    );
  });

  it.each(budgeted.map((entry) => [entry.declared.operationId, entry] as const))(
    "%s answers 429 rate_limited with Retry-After and the RateLimit headers, as documented",
    async (_operationId, { declared, subject, limit }) => {
      const tenant = await t.tenant(`Spent ${declared.operationId}`);
      const token = await t.token(tenant);
      await spend(await companyIdOf(`Spent ${declared.operationId}`), subject, limit.requests);
      const response = await t.request(declared.path.replace("{chunkIndex}", "0").replace(/\{[^}]+\}/g, "spent-budget"), {
        method: declared.method.toUpperCase(),
        headers: {
          authorization: `Bearer ${token}`,
          ...(declared.body === undefined ? {} : { "content-type": declared.body.contentType }),
        },
        ...(declared.body === undefined ? {} : { body: "{}" }),
      });
      expect(response.status).toBe(429);
      expect(response.headers.get("retry-after")).toBe("3600");
      expect(response.headers.get("ratelimit-limit")).toBe(String(limit.requests));
      expect(response.headers.get("ratelimit-remaining")).toBe("0");
      expect(response.headers.get("ratelimit-reset")).toBe("3600");
      expect(await expectContract(response, declared.method, declared.path)).toEqual({
        error: true,
        message: "Rate limit exceeded",
        code: 429,
        error_code: "rate_limited",
      });
    },
  );
});

describe("the numbers of contract part 8, pinned here rather than read from the api's own table", () => {
  const kit = snapshotTestKit(t);

  it("hold chunk uploads to 500 an hour per company, one budget for every snapshot and campaign", async () => {
    const { companyId, campaign, token } = await kit.setup();
    const second = await t.db
      .insertInto("campaigns")
      .values((eb) => ({
        company_id: companyId,
        api_reference: `${campaign.api_reference}-second`,
        name: "Second campaign",
        creditor_id: eb.selectFrom("campaigns").select("creditor_id").where("id", "=", campaign.id),
        timeline_id: eb.selectFrom("campaigns").select("timeline_id").where("id", "=", campaign.id),
      }))
      .returning("api_reference")
      .executeTakeFirstOrThrow();
    const chunk = async (api: string, reference: string, index: number) =>
      kit.send("PUT", kit.path(api, reference, `/chunks/${index}`), token, rowsBody([]));
    for (const [api, reference] of [
      [campaign.api_reference, "first"],
      [second.api_reference, "second"],
    ] as const) {
      const start = await kit.send("POST", kit.path(api, reference, "/start"), token, '{"expected_row_count":0}');
      expect(start.status).toBe(201);
    }

    const first = await chunk(campaign.api_reference, "first", 0);
    expect(first.status).toBe(201);
    expect(first.headers.get("ratelimit-limit")).toBe("500");
    expect(first.headers.get("ratelimit-remaining")).toBe("499");
    const other = await chunk(second.api_reference, "second", 0);
    expect(other.status).toBe(201);
    expect(other.headers.get("ratelimit-limit")).toBe("500");
    expect(other.headers.get("ratelimit-remaining")).toBe("498");

    await spend(companyId, rateLimitSubject(endpoints.uploadSnapshotChunk) ?? "", 500);
    const refused = await chunk(second.api_reference, "second", 1);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("ratelimit-limit")).toBe("500");
    expect(await expectContract(refused, "put", CHUNK_PATH)).toEqual({
      error: true,
      message: "Rate limit exceeded",
      code: 429,
      error_code: "rate_limited",
    });
    // The one-request submit keeps its own budget of 50.
    const submit = await kit.send("PUT", kit.path(campaign.api_reference, "one-request"), token, rowsBody([]));
    expect(submit.status).toBe(202);
    expect(submit.headers.get("ratelimit-limit")).toBe("50");
    expect(submit.headers.get("ratelimit-remaining")).toBe("49");
  });

  it("give 1,000 an hour to the creditor list, get and update, debts by creditor, the followup list and the company profile", async () => {
    const tenant = await t.tenant("Part Eight Corp");
    const token = await t.token(tenant);
    const api = jsonApi(t.request);
    const creditor = `/external-api/v1/creditors/${tenant.creditor_id}`;
    const answers = [
      await api.get("/external-api/v1/creditors", token),
      await api.get(creditor, token),
      await api.put(creditor, token, { city: "Lyon" }),
      await api.get(`/external-api/v1/debts/by-creditor/${tenant.creditor_id}`, token),
      await api.get("/external-api/v1/followups", token),
      await api.get(PROFILE, token),
    ];
    expect(answers.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(answers.map((response) => response.headers.get("ratelimit-limit"))).toEqual(Array(6).fill("1000"));
    expect(answers.map((response) => response.headers.get("ratelimit-remaining"))).toEqual(Array(6).fill("999"));
  });
});
