import { Subscription } from "@dc/domain";
import { describe, expect, it } from "vitest";
import { createUser } from "../src/admin/companies.ts";
import { NotFound } from "../src/http/api-error.ts";
import type { HandlerInput } from "../src/http/handler.ts";
import { getCompanyCredits } from "../src/routes/company/get-credits.ts";
import { getCompanyProfile } from "../src/routes/company/get-profile.ts";
import { getCompanyStatistics } from "../src/routes/company/get-statistics.ts";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const acmeCompany = rows.companyOf(acme);
const token = await t.token(acme);

const STATISTICS = "/external-api/v1/company/statistics";
const CREDITS = "/external-api/v1/company/credits";
const USERS = "/external-api/v1/company/users";

const forbidden = async (path: string, scope: string, granted: string) => {
  const response = await t.get(path, await t.token(acme, granted));
  expect(response.status).toBe(403);
  expect(await expectContract(response, "get", path)).toEqual({
    error: true,
    message: `Required scope "${scope}" not found in token`,
    code: 403,
  });
};

describe("GET /company/statistics", () => {
  it("counts the company's debts and followups of all time, and no one else's", async () => {
    const empty = await t.get(STATISTICS, token);
    expect(empty.status).toBe(200);
    expect(await expectContract(empty, "get", STATISTICS)).toEqual({
      error: false,
      message: "Company statistics retrieved successfully",
      data: { debts: { total: 0 }, followups: { total: 0 } },
    });
    const debts = [
      await rows.debt(acme),
      await rows.debt(acme),
      await rows.debt(acme, { created_at: new Date("2001-01-01T00:00:00Z") }),
    ];
    await rows.followup(acme, debts[0]!);
    await rows.followup(acme, debts[2]!, { created_at: new Date("2001-01-02T00:00:00Z") });
    const globexDebt = await rows.debt(globex);
    await rows.followup(globex, globexDebt);
    await rows.followup(globex, globexDebt);
    const response = await t.get(`${STATISTICS}?period=today&debts=1`, token);
    expect((await expectContract(response, "get", STATISTICS)).data).toEqual({
      debts: { total: 3 },
      followups: { total: 2 },
    });
    const other = await expectContract(await t.get(STATISTICS, await t.token(globex)), "get", STATISTICS);
    expect(other.data).toEqual({ debts: { total: 1 }, followups: { total: 2 } });
  });

  it("requires company:read", () => forbidden(STATISTICS, "company:read", "debts:read followups:read"));
});

describe("GET /company/credits", () => {
  it("returns the balance and the starter subscription of a new company, ending a month after its creation", async () => {
    const created = await t.db
      .selectFrom("companies")
      .select("created_at")
      .where("id", "=", acmeCompany)
      .executeTakeFirstOrThrow();
    const response = await t.get(CREDITS, token);
    expect(response.status).toBe(200);
    expect(await expectContract(response, "get", CREDITS)).toEqual({
      error: false,
      message: "Company credits retrieved successfully",
      data: {
        current_credits: 100,
        subscription: {
          plan: "starter",
          status: "active",
          expires_at: Subscription.addMonths(created.created_at, 1).toISOString().replace(/\.\d{3}Z$/, "+00:00"),
        },
      },
    });
  });

  it("ends the current period at the next monthly anniversary of the company's creation", async () => {
    const initech = await t.tenant("Initech");
    // The clock reads 2026-11-21T10:00Z: the anniversary of 31 October has passed, November's falls on its last day.
    await t.db
      .updateTable("companies")
      .set({ created_at: new Date("2025-08-31T12:00:00Z") })
      .where("id", "=", rows.companyOf(initech))
      .execute();
    const { data } = await expectContract(await t.get(CREDITS, await t.token(initech)), "get", CREDITS);
    expect(data.subscription).toEqual({ plan: "starter", status: "active", expires_at: "2026-11-30T12:00:00+00:00" });
  });

  it("shows the company's own plan, a negative balance and an ISO 8601 expiry", async () => {
    await t.db
      .updateTable("companies")
      .set({
        current_credits: -3,
        subscription_plan: "growth",
        subscription_status: "past_due",
        subscription_expires_at: new Date("2027-01-31T23:00:00Z"),
      })
      .where("id", "=", acmeCompany)
      .execute();
    const { data } = await expectContract(await t.get(CREDITS, token), "get", CREDITS);
    expect(data).toEqual({
      current_credits: -3,
      subscription: { plan: "growth", status: "past_due", expires_at: "2027-01-31T23:00:00+00:00" },
    });
    const other = await expectContract(await t.get(CREDITS, await t.token(globex)), "get", CREDITS);
    expect(other.data.current_credits).toBe(100);
  });

  it("requires company:read", () => forbidden(CREDITS, "company:read", "users:read"));
});

describe("company not found", () => {
  // A deleted company takes its tokens with it (cascade), so over HTTP this is a 401;
  // the handlers still refuse a principal whose company row is gone.
  it("is 404 `Company not found` in the statistics and credits handlers", async () => {
    const input = {
      principal: { companyId: 987_654, clientPk: 0, grantId: 0, scopes: new Set() },
      services: t.api.services,
    } as unknown as HandlerInput<undefined, undefined, undefined, true>;
    for (const handler of [getCompanyStatistics, getCompanyCredits, getCompanyProfile]) {
      const error = await handler(input).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NotFound);
      expect((error as NotFound).message).toBe("Company not found");
    }
  });

  // The document lists 404 `Company not found` for profile, statistics and credits, but no request
  // can reach it: the token is resolved first, and it goes with its company.
  it("is 401 over HTTP: a deleted company's token is refused before any handler runs", async () => {
    const dissolved = await t.tenant("Dissolved Ltd");
    const dissolvedToken = await t.token(dissolved);
    await t.db.deleteFrom("companies").where("id", "=", rows.companyOf(dissolved)).execute();
    for (const path of ["/external-api/v1/company/profile", STATISTICS, CREDITS]) {
      const response = await t.get(path, dissolvedToken);
      expect(response.status, path).toBe(401);
      expect(await expectContract(response, "get", path)).toEqual({
        error: true,
        message: "Authentication credentials are missing or invalid",
        code: 401,
      });
    }
  });
});

describe("GET /company/users", () => {
  it("lists the company's users oldest first without any credential", async () => {
    await createUser(t.db, {
      companyId: acmeCompany,
      email: "b@acme.example",
      password: "pw-b-123456",
      role: "member",
    });
    const disabled = await createUser(t.db, {
      companyId: acmeCompany,
      email: "c@acme.example",
      password: "pw-c-123456",
      role: "member",
    });
    await t.db
      .updateTable("users")
      .set({ name: "Carla", disabled_at: new Date("2026-11-20T10:00:00Z") })
      .where("id", "=", disabled.id)
      .execute();
    await createUser(t.db, {
      companyId: rows.companyOf(globex),
      email: "x@globex.example",
      password: "pw-x-123456",
      role: "admin",
    });

    const response = await t.get(USERS, token);
    expect(response.status).toBe(200);
    const raw = await response.clone().text();
    const body = await expectContract(response, "get", USERS);
    expect(body.pagination).toEqual({ total: 3, page: 1, limit: 20, pages: 1 });
    expect(body.data).toEqual([
      {
        id: expect.any(String),
        email: acme.user_email,
        name: null,
        role: "admin",
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/),
        disabled_at: null,
      },
      expect.objectContaining({ email: "b@acme.example", role: "member", disabled_at: null }),
      expect.objectContaining({
        id: ids.encode("user", disabled.id),
        email: "c@acme.example",
        name: "Carla",
        disabled_at: "2026-11-20T10:00:00+00:00",
      }),
    ]);
    expect(raw).not.toMatch(/password|scrypt|hash/i);
    expect(raw).not.toContain("globex");
  });

  it("paginates and validates page and limit", async () => {
    const page2 = await expectContract(await t.get(`${USERS}?limit=2&page=2`, token), "get", USERS);
    expect(page2.data.map((user: { email: string }) => user.email)).toEqual(["c@acme.example"]);
    expect(page2.pagination).toEqual({ total: 3, page: 2, limit: 2, pages: 2 });
    const past = await expectContract(await t.get(`${USERS}?page=9`, token), "get", USERS);
    expect(past).toEqual({ error: false, data: [], pagination: { total: 3, page: 9, limit: 20, pages: 1 } });
    const bad = await t.get(`${USERS}?limit=500`, token);
    expect(bad.status).toBe(400);
    expect((await expectContract(bad, "get", USERS)).details).toEqual({ limit: "must be an integer from 1 to 100" });
  });

  it("requires users:read, which company:read does not grant", () => forbidden(USERS, "users:read", "company:read"));
});
