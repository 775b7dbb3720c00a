import { describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const debtA = await rows.debt(acme);
const debtB = await rows.debt(acme);
const globexDebt = await rows.debt(globex);
const token = await t.token(acme);

const LIST = "/external-api/v1/followups";
const BY_DEBT = "/external-api/v1/followups/debt/{debtId}";
const at = (iso: string) => new Date(iso);

// Seven followups of Acme on four days, newest last; Globex has its own on the same days.
const seeded = [
  await rows.followup(acme, debtA, { type: "email", status: "sent", created_at: at("2026-11-01T00:00:00Z") }),
  await rows.followup(acme, debtA, { type: "call", status: "no_answer", created_at: at("2026-11-01T23:59:59Z") }),
  await rows.followup(acme, debtB, { type: "sms", status: "sent", created_at: at("2026-11-02T12:00:00Z") }),
  await rows.followup(acme, debtA, { type: "call", status: "deal_found", created_at: at("2026-11-03T08:00:00Z") }),
  await rows.followup(acme, debtB, { type: "call", status: "on_hold", created_at: at("2026-11-03T09:00:00Z") }),
  await rows.followup(acme, debtA, { type: "whatsapp", status: "failed", created_at: at("2026-11-04T00:00:00Z") }),
  await rows.followup(acme, debtB, { type: "email", status: "sent", created_at: at("2026-11-04T10:00:00Z") }),
];
const foreign = [
  await rows.followup(globex, globexDebt, { type: "email", status: "sent", created_at: at("2026-11-02T12:00:00Z") }),
  await rows.followup(globex, globexDebt, {
    type: "call",
    status: "no_answer",
    created_at: at("2026-11-03T12:00:00Z"),
  }),
];
const idOf = (key: number) => ids.encode("followup", key);
const newestFirst = [...seeded].reverse().map(idOf);

const list = async (query: string, path = LIST, template = LIST) => {
  const response = await t.get(`${path}${query}`, token);
  return { status: response.status, body: await expectContract(response, "get", template) };
};

describe("GET /followups", () => {
  it("lists the company's followups newest first with default pagination, never another company's", async () => {
    const { status, body } = await list("");
    expect(status).toBe(200);
    expect(body.error).toBe(false);
    expect(body).not.toHaveProperty("message");
    expect(body.data.map((followup: { id: string }) => followup.id)).toEqual(newestFirst);
    expect(body.pagination).toEqual({ total: 7, page: 1, limit: 20, pages: 1 });
    expect(body.data[0]).toMatchObject({
      debt_id: ids.encode("debt", debtB),
      type: "email",
      created_at: "2026-11-04T10:00:00+00:00",
    });
    for (const key of foreign)
      expect(body.data.map((followup: { id: string }) => followup.id)).not.toContain(idOf(key));
  });

  it("paginates: limit, pages, a partial last page and a page past the end", async () => {
    expect((await list("?limit=3")).body.pagination).toEqual({ total: 7, page: 1, limit: 3, pages: 3 });
    const last = await list("?limit=3&page=3");
    expect(last.body.data.map((followup: { id: string }) => followup.id)).toEqual(newestFirst.slice(6));
    const second = await list("?limit=3&page=2");
    expect(second.body.data.map((followup: { id: string }) => followup.id)).toEqual(newestFirst.slice(3, 6));
    const past = await list("?limit=3&page=4");
    expect(past.body).toEqual({ error: false, data: [], pagination: { total: 7, page: 4, limit: 3, pages: 3 } });
    expect((await list("?limit=100")).body.pagination.limit).toBe(100);
    expect((await list("?limit=1")).body.pagination).toEqual({ total: 7, page: 1, limit: 1, pages: 7 });
  });

  it("answers 400 naming page or limit when out of range or not an integer", async () => {
    for (const [query, field] of [
      ["?limit=101", "limit"],
      ["?limit=0", "limit"],
      ["?limit=2.5", "limit"],
      ["?limit=ten", "limit"],
      ["?page=0", "page"],
      ["?page=-1", "page"],
      ["?page=1&page=2", "page"],
    ] as const) {
      const { status, body } = await list(query);
      expect(status, query).toBe(400);
      expect(body.message).toBe("Validation failed");
      expect(Object.keys(body.details), query).toEqual([field]);
    }
  });

  it("filters by status and by type, counting the filtered set", async () => {
    const sent = await list("?status=sent");
    expect(sent.body.data.map((followup: { id: string }) => followup.id)).toEqual(
      [seeded[6], seeded[2], seeded[0]].map((key) => idOf(key!)),
    );
    expect(sent.body.pagination).toEqual({ total: 3, page: 1, limit: 20, pages: 1 });
    const calls = await list("?type=call&limit=2");
    expect(calls.body.data.map((followup: { id: string }) => followup.id)).toEqual(
      [seeded[4], seeded[3]].map((key) => idOf(key!)),
    );
    expect(calls.body.pagination).toEqual({ total: 3, page: 1, limit: 2, pages: 2 });
    expect((await list("?type=call&status=deal_found")).body.pagination.total).toBe(1);
  });

  it("filters by creation day, both bounds inclusive (UTC)", async () => {
    const day = await list("?date_from=2026-11-01&date_to=2026-11-01");
    expect(day.body.data.map((followup: { id: string }) => followup.id)).toEqual(
      [seeded[1], seeded[0]].map((key) => idOf(key!)),
    );
    const from = await list("?date_from=2026-11-04");
    expect(from.body.pagination.total).toBe(2);
    const to = await list("?date_to=2026-11-02");
    expect(to.body.pagination.total).toBe(3);
    const span = await list("?date_from=2026-11-02&date_to=2026-11-03&type=call");
    expect(span.body.data.map((followup: { id: string }) => followup.id)).toEqual(
      [seeded[4], seeded[3]].map((key) => idOf(key!)),
    );
  });

  it("filters by debt; another company's debt matches nothing", async () => {
    const a = await list(`?debt_id=${ids.encode("debt", debtA)}`);
    expect(a.body.pagination.total).toBe(4);
    expect(new Set(a.body.data.map((followup: { debt_id: string }) => followup.debt_id))).toEqual(
      new Set([ids.encode("debt", debtA)]),
    );
    const other = await list(`?debt_id=${ids.encode("debt", globexDebt)}`);
    expect(other.body).toEqual({ error: false, data: [], pagination: { total: 0, page: 1, limit: 20, pages: 0 } });
  });

  it("answers 400 naming each invalid filter", async () => {
    for (const [query, field, message] of [
      ["?status=done", "status", expect.stringMatching(/^must be one of: on_hold, /)],
      ["?type=fax", "type", "must be one of: call, email, sms, whatsapp, voicemail, manual_call, physical, postmail"],
      ["?date_from=2026-02-30", "date_from", "must be a real calendar date in the format YYYY-MM-DD"],
      ["?date_to=21/11/2026", "date_to", "must be a real calendar date in the format YYYY-MM-DD"],
      ["?date_from=2026-11-05&date_to=2026-11-04", "date_to", "must not be before date_from"],
      ["?debt_id=garbage", "debt_id", "must be a debt id"],
      [`?debt_id=${ids.encode("creditor", 1)}`, "debt_id", "must be a debt id"],
    ] as const) {
      const { status, body } = await list(query);
      expect(status, query).toBe(400);
      expect(body.details, query).toEqual({ [field]: message });
    }
  });

  it("requires followups:read", async () => {
    const response = await t.get(LIST, await t.token(acme, "followups:write"));
    expect(response.status).toBe(403);
    expect(await expectContract(response, "get", LIST)).toEqual({
      error: true,
      message: 'Required scope "followups:read" not found in token',
      code: 403,
    });
    const anonymous = await t.get(LIST);
    expect(anonymous.status).toBe(401);
    expect((await expectContract(anonymous, "get", LIST)).message).toBe(
      "Authentication credentials are missing or invalid",
    );
  });
});

describe("GET /followups/debt/{debtId}", () => {
  const path = (debtKey: number) => `/external-api/v1/followups/debt/${ids.encode("debt", debtKey)}`;

  it("lists one debt's followups newest first, paginated", async () => {
    const { status, body } = await list("?limit=2", path(debtB), BY_DEBT);
    expect(status).toBe(200);
    expect(body.data.map((followup: { id: string }) => followup.id)).toEqual(
      [seeded[6], seeded[4]].map((key) => idOf(key!)),
    );
    expect(body.pagination).toEqual({ total: 3, page: 1, limit: 2, pages: 2 });
    const page2 = await list("?limit=2&page=2", path(debtB), BY_DEBT);
    expect(page2.body.data.map((followup: { id: string }) => followup.id)).toEqual([idOf(seeded[2]!)]);
  });

  it("applies the list's filters", async () => {
    const { body } = await list("?type=call&date_to=2026-11-02", path(debtA), BY_DEBT);
    expect(body.data.map((followup: { id: string }) => followup.id)).toEqual([idOf(seeded[1]!)]);
    expect(body.pagination.total).toBe(1);
    const bad = await list("?status=nope", path(debtA), BY_DEBT);
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.details)).toEqual(["status"]);
  });

  it("returns an empty page for a debt without followups", async () => {
    const empty = await rows.debt(acme);
    const { body } = await list("", path(empty), BY_DEBT);
    expect(body).toEqual({ error: false, data: [], pagination: { total: 0, page: 1, limit: 20, pages: 0 } });
  });

  it("answers 404 `Debt not found` for another company's, unknown, forged and other-kind ids", async () => {
    for (const debtId of [
      ids.encode("debt", globexDebt),
      ids.encode("debt", 987_654),
      "garbage",
      ids.encode("followup", seeded[0]!),
    ]) {
      const response = await t.get(`/external-api/v1/followups/debt/${debtId}`, token);
      expect(response.status, debtId).toBe(404);
      expect(await expectContract(response, "get", BY_DEBT)).toEqual({
        error: true,
        message: "Debt not found",
        code: 404,
      });
    }
  });

  it("requires followups:read", async () => {
    const response = await t.get(path(debtA), await t.token(acme, "debts:read"));
    expect(response.status).toBe(403);
    expect((await expectContract(response, "get", BY_DEBT)).message).toBe(
      'Required scope "followups:read" not found in token',
    );
  });
});
