import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const api = jsonApi(t.request);
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const token = await t.token(acme);
const noDebtScope = await t.token(acme, "creditors:read");

const BY_CREDITOR = "/external-api/v1/debts/by-creditor/{creditorId}";
const ALIAS = "/external-api/v1/debts/creditor/{creditorId}";
const ALL = "/external-api/v1/debts";
const BY_DEBTOR = "/external-api/v1/debts/debtor/{debtorId}";
const byCreditor = (id: string, query = "") => `/external-api/v1/debts/by-creditor/${id}${query}`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;
type Page = { error: false; data: Json[]; pagination: { total: number; page: number; limit: number; pages: number } };

const acmeCompany = rows.companyOf(acme);
const creditorA = ids.decode("creditor", acme.creditor_id)!;
const insertCreditor = async (name: string): Promise<number> =>
  (
    await t.db
      .insertInto("creditors")
      .values({ company_id: acmeCompany, name })
      .returning("id")
      .executeTakeFirstOrThrow()
  ).id;
const creditorB = await insertCreditor("Second creditor");
const debtor = await rows.debtor(acme, { debtor_reference: "D-1", lastname: "Debtor one" });
const foreignDebtor = await rows.debtor(globex, { debtor_reference: "D-1" });

const T0 = Date.parse("2026-01-01T00:00:00Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

/** 12 debts of creditor A, created a minute apart (index 0 oldest). */
const specs = [
  {
    status: "status.default.pending",
    currency: "EUR",
    amount_minor: 1_000,
    amount_text: "10.00",
    internal_id: "ACC-001",
  },
  {
    status: "status.default.in_progress",
    currency: "EUR",
    amount_minor: 2_550,
    amount_text: "25.50",
    internal_id: "ACC-002",
  },
  { status: "status.default.paid", currency: "EUR", amount_minor: 5_000, amount_text: "50.00", internal_id: "acc-003" },
  {
    status: "status.default.disputed",
    currency: "USD",
    amount_minor: 7_500,
    amount_text: "75.00",
    internal_id: "ACC-004",
  },
  {
    status: "status.default.payment_plan",
    currency: "JPY",
    amount_minor: 3_000,
    amount_text: "3000",
    internal_id: "ACC-005",
  },
  {
    status: "status.default.cancelled",
    currency: "EUR",
    amount_minor: 100_000,
    amount_text: "1000.00",
    internal_id: "ACC-006",
  },
  { status: "status.default.pending", currency: "JPY", amount_minor: 50, amount_text: "50", internal_id: "ACC-007" },
  { status: "status.default.pending", currency: "EUR", amount_minor: 999, amount_text: "9.99", internal_id: null },
  {
    status: "status.default.in_progress",
    currency: "KWD",
    amount_minor: 12_345,
    amount_text: "12.345",
    internal_id: "ACC_009",
  },
  {
    status: "status.default.pending",
    currency: "EUR",
    amount_minor: 30_000,
    amount_text: "300.00",
    internal_id: "ACC-010",
  },
  { status: "status.default.paid", currency: "USD", amount_minor: 1, amount_text: "0.01", internal_id: "ACC-011" },
  {
    status: "status.default.pending",
    currency: "EUR",
    amount_minor: 4_200,
    amount_text: "42.00",
    internal_id: "ACC-012",
  },
] as const;
const keysA: number[] = [];
for (const [index, spec] of specs.entries()) {
  keysA.push(
    await rows.debt(acme, {
      ...spec,
      balance_minor: spec.amount_minor,
      creditor_id: creditorA,
      created_at: at(index),
      debtor_id: index % 4 === 0 ? debtor : null,
    }),
  );
}
const keysB = [
  await rows.debt(acme, { creditor_id: creditorB, created_at: at(100), lastname: "B one" }),
  await rows.debt(acme, { creditor_id: creditorB, created_at: at(101), lastname: "B two" }),
];
const globexKeys = [await rows.debt(globex, { created_at: at(5), internal_id: "ACC-001", debtor_id: foreignDebtor })];

const enc = (key: number) => ids.encode("debt", key);
const newestFirst = (keys: ReadonlyArray<number>) => [...keys].reverse().map(enc);
const idsOf = (page: Page) => page.data.map((debt) => debt["id"] as string);
const selectA = (predicate: (spec: (typeof specs)[number], index: number) => boolean) =>
  newestFirst(keysA.filter((_, index) => predicate(specs[index]!, index)));

const list = async (path: string, template: string, accessToken = token): Promise<Page> => {
  const response = await api.get(path, accessToken);
  expect(response.status, await response.clone().text()).toBe(200);
  return expectContract<Page>(response, "get", template);
};

describe("GET /debts/by-creditor/{creditorId}", () => {
  it("lists the creditor's debts newest first with every debt field and the group attributes", async () => {
    const page = await list(byCreditor(acme.creditor_id), BY_CREDITOR);
    expect(idsOf(page)).toEqual(newestFirst(keysA));
    expect(page.pagination).toEqual({ total: 12, page: 1, limit: 20, pages: 1 });
    const newest = page.data[0]!;
    expect(newest).toEqual({
      id: enc(keysA[11]!),
      creditor_id: acme.creditor_id,
      debtor_id: null,
      civility: null,
      firstname: null,
      lastname: null,
      phone: null,
      email: null,
      birthdate: null,
      amount: 42,
      amount_text: "42.00",
      remaining_amount: 42,
      currency: "EUR",
      object: null,
      internal_id: "ACC-012",
      invoice_reference: null,
      credited_invoice_reference: null,
      is_credit_note: false,
      debtor_reference: null,
      invoice_date: null,
      due_date: null,
      address: null,
      street_address: null,
      street_number: null,
      postal_code: null,
      city: null,
      country: null,
      status: "status.default.pending",
      timeline_id: null,
      nb_reminders: 0,
      nb_answered: 0,
      summary: null,
      iban: null,
      followups_count: 0,
      debtor_company: null,
      payment_link: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/pay\/[A-Za-z0-9_-]{48}$/),
      metadata: {},
      import_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/),
      last_timeline_restart: null,
      payment_plan_active: false,
      plan_start_date: null,
      is_grouped: false,
      group_debt_ids: [enc(keysA[11]!)],
      created_at: "2026-01-01T00:11:00+00:00",
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/),
    });
    expect(page.data.find((debt) => debt["id"] === enc(keysA[4]!))).toMatchObject({
      amount: 3000,
      currency: "JPY",
      amount_text: "3000",
    });
    expect(page.data.find((debt) => debt["id"] === enc(keysA[8]!))).toMatchObject({ amount: 12.345, currency: "KWD" });
  });

  it("serves the same list at /debts/creditor/{creditorId}", async () => {
    const alias = await list(`/external-api/v1/debts/creditor/${acme.creditor_id}?limit=5&page=2`, ALIAS);
    const original = await list(byCreditor(acme.creditor_id, "?limit=5&page=2"), BY_CREDITOR);
    expect(alias).toEqual(original);
    expect(alias.pagination).toEqual({ total: 12, page: 2, limit: 5, pages: 3 });
  });

  it("never shows another creditor's or another company's debts", async () => {
    const second = await list(byCreditor(ids.encode("creditor", creditorB)), BY_CREDITOR);
    expect(idsOf(second)).toEqual(newestFirst(keysB));
    const globexToken = await t.token(globex);
    const foreign = await list(byCreditor(globex.creditor_id), BY_CREDITOR, globexToken);
    expect(idsOf(foreign)).toEqual(globexKeys.map(enc));
  });

  it("answers 404 for another company's, an unknown, an invalid or a non-creditor id", async () => {
    for (const id of [globex.creditor_id, ids.encode("creditor", 123_456), "bad", enc(keysA[0]!)]) {
      for (const [path, template] of [
        [byCreditor(id), BY_CREDITOR],
        [`/external-api/v1/debts/creditor/${id}`, ALIAS],
      ] as const) {
        const response = await api.get(path, token);
        expect(response.status).toBe(404);
        expect(await expectContract(response, "get", template)).toEqual({
          error: true,
          code: 404,
          message: "Creditor not found",
        });
      }
    }
  });

  it("pages: deep pages, the last partial page, a page beyond the end, limit 100", async () => {
    const pages = [];
    for (let page = 1; page <= 3; page++)
      pages.push(await list(byCreditor(acme.creditor_id, `?limit=5&page=${page}`), BY_CREDITOR));
    expect(pages.flatMap(idsOf)).toEqual(newestFirst(keysA));
    expect(pages[2]!.data).toHaveLength(2);
    const beyond = await list(byCreditor(acme.creditor_id, "?limit=5&page=4"), BY_CREDITOR);
    expect(beyond).toEqual({ error: false, data: [], pagination: { total: 12, page: 4, limit: 5, pages: 3 } });
    const wide = await list(byCreditor(acme.creditor_id, "?limit=100"), BY_CREDITOR);
    expect(wide.pagination).toEqual({ total: 12, page: 1, limit: 100, pages: 1 });
  });

  it("answers 400 naming the parameter for bad pagination and filters", async () => {
    for (const [query, field] of [
      ["limit=101", "limit"],
      ["page=0", "page"],
      ["limit=abc", "limit"],
      ["page=-1", "page"],
      ["page=0x10", "page"],
      ["limit=%201", "limit"],
      ["limit=1e1", "limit"],
      ["page=1.0", "page"],
      ["status=open", "status"],
      ["currency=euro", "currency"],
      ["amount_min=abc", "amount_min"],
      ["amount_min=0x10", "amount_min"],
      ["amount_min=1e2", "amount_min"],
      ["amount_max=Infinity", "amount_max"],
      ["amount_max=-1", "amount_max"],
      ["amount_min=10&amount_max=5", "amount_max"],
      ["created_after=yesterday", "created_after"],
      ["created_before=2026-02-30", "created_before"],
      ["created_before=2026-01-01T24:00:00Z", "created_before"],
      ["created_after=2026-01-01T00:00:00", "created_after"],
      ["created_after=2026-01-01&created_before=2026-01-01", "created_before"],
      ["created_after=2026-02-01T00:00:00Z&created_before=2026-01-01T00:00:00Z", "created_before"],
      ["search=", "search"],
      [`search=${"x".repeat(101)}`, "search"],
    ] as const) {
      const response = await api.get(byCreditor(acme.creditor_id, `?${query}`), token);
      expect(response.status, query).toBe(400);
      const body = await expectContract<Json>(response, "get", BY_CREDITOR);
      expect(body).toMatchObject({ error: true, code: 400, message: "Validation failed" });
      expect(Object.keys(body["details"]), query).toEqual([field]);
    }
  });

  it("filters by status (named filters and exact values), with totals that count the filtered set", async () => {
    const cases: Array<[string, (spec: (typeof specs)[number]) => boolean]> = [
      [
        "active",
        (spec) =>
          ["status.default.pending", "status.default.in_progress", "status.default.payment_plan"].includes(spec.status),
      ],
      ["paid", (spec) => spec.status === "status.default.paid"],
      ["disputed", (spec) => spec.status === "status.default.disputed"],
      ["status.default.cancelled", (spec) => spec.status === "status.default.cancelled"],
    ];
    for (const [status, predicate] of cases) {
      const page = await list(byCreditor(acme.creditor_id, `?status=${status}&limit=3`), BY_CREDITOR);
      const expected = selectA(predicate);
      expect(idsOf(page), status).toEqual(expected.slice(0, 3));
      expect(page.pagination.total, status).toBe(expected.length);
    }
  });

  it("filters by currency, amount range (major units of each debt's currency), creation time and search", async () => {
    const check = async (query: string, predicate: (spec: (typeof specs)[number], index: number) => boolean) => {
      const page = await list(byCreditor(acme.creditor_id, `?${query}&limit=100`), BY_CREDITOR);
      const expected = selectA(predicate);
      expect(idsOf(page), query).toEqual(expected);
      expect(page.pagination.total, query).toBe(expected.length);
    };
    await check("currency=JPY", (spec) => spec.currency === "JPY");
    await check(
      "currency=EUR&status=active",
      (spec) =>
        spec.currency === "EUR" && ["status.default.pending", "status.default.in_progress"].includes(spec.status),
    );
    // 50 means 50.00 EUR/USD, 50 JPY and 50.000 KWD.
    await check(
      "amount_min=50",
      (spec) => spec.amount_minor >= (spec.currency === "JPY" ? 50 : spec.currency === "KWD" ? 50_000 : 5_000),
    );
    await check(
      "amount_max=12.345",
      (spec) => spec.amount_minor <= (spec.currency === "JPY" ? 12 : spec.currency === "KWD" ? 12_345 : 1_234),
    );
    await check(
      "amount_min=9.99&amount_max=10",
      (spec) =>
        spec.currency !== "JPY" && spec.currency !== "KWD" && spec.amount_minor >= 999 && spec.amount_minor <= 1_000,
    );
    await check("created_after=2026-01-01", () => true);
    await check("created_after=2026-01-02", () => false);
    await check("created_before=2026-01-02", () => true);
    await check("created_after=2026-01-01T00:03:00%2B00:00", (_, index) => index >= 3);
    await check("created_before=2026-01-01T01:03:00%2B01:00", (_, index) => index < 3);
    await check(
      "created_after=2026-01-01T00:02:00Z&created_before=2026-01-01T00:05:00Z",
      (_, index) => index >= 2 && index < 5,
    );
    await check(
      "search=acc-00",
      (spec) => spec.internal_id !== null && spec.internal_id.toLowerCase().startsWith("acc-00"),
    );
    await check("search=_", (spec) => spec.internal_id === "ACC_009");
    await check("search=50.00", (spec) => spec.amount_text.includes("50.00"));
    await check("search=ACC-01&currency=USD", (spec) => spec.internal_id === "ACC-011");
  });

  it("reads a date in created_after and created_before as that day's start in UTC", async () => {
    const creditorC = await insertCreditor("Day boundaries");
    const instants = ["2026-02-28T23:59:59Z", "2026-03-01T00:00:00Z", "2026-03-01T23:59:59Z", "2026-03-02T00:00:00Z"];
    const keys: number[] = [];
    for (const instant of instants) {
      keys.push(await rows.debt(acme, { creditor_id: creditorC, created_at: new Date(instant) }));
    }
    const creditorId = ids.encode("creditor", creditorC);
    const check = async (query: string, expected: ReadonlyArray<number>) => {
      const page = await list(byCreditor(creditorId, `?${query}`), BY_CREDITOR);
      expect(idsOf(page), query).toEqual(newestFirst(expected));
      expect(page.pagination.total, query).toBe(expected.length);
    };
    await check("created_after=2026-03-01", keys.slice(1));
    await check("created_before=2026-03-01", keys.slice(0, 1));
    await check("created_after=2026-03-01&created_before=2026-03-02", keys.slice(1, 3));
    await check("created_after=2026-03-01&created_before=2026-03-01T12:00:00%2B01:00", keys.slice(1, 2));
  });

  it("computes the group attributes from the group's non-archived debts, and the shared plan", async () => {
    const group = await t.db
      .insertInto("debt_groups")
      .values({ company_id: acmeCompany })
      .returning("id")
      .executeTakeFirstOrThrow();
    const lonely = await t.db
      .insertInto("debt_groups")
      .values({ company_id: acmeCompany })
      .returning("id")
      .executeTakeFirstOrThrow();
    const creditor = (
      await t.db
        .insertInto("creditors")
        .values({ company_id: acmeCompany, name: "Grouped" })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
    const member = (minutes: number, groupId: number | null, status = "status.default.pending") =>
      rows.debt(acme, { creditor_id: creditor, group_id: groupId, status, created_at: at(200 + minutes) });
    const first = await member(1, group.id);
    const second = await member(2, group.id, "status.default.in_progress");
    const paid = await member(3, group.id, "status.default.paid");
    const alone = await member(4, lonely.id);
    const cancelled = await member(5, lonely.id, "status.default.cancelled");
    const ungrouped = await member(6, null);
    await rows.paymentPlan(acme, first, { start_date: "2026-12-01" }, [
      { payment_date: "2026-12-01", status: "pending" },
    ]);

    const page = await list(byCreditor(ids.encode("creditor", creditor)), BY_CREDITOR);
    const byId = new Map(page.data.map((debt) => [debt["id"], debt]));
    const pair = [enc(first), enc(second)];
    expect(byId.get(enc(first))).toMatchObject({
      is_grouped: true,
      group_debt_ids: pair,
      payment_plan_active: true,
      plan_start_date: "2026-12-01",
    });
    expect(byId.get(enc(second))).toMatchObject({
      is_grouped: true,
      group_debt_ids: pair,
      payment_plan_active: true,
      plan_start_date: "2026-12-01",
    });
    expect(byId.get(enc(paid))).toMatchObject({
      is_grouped: true,
      group_debt_ids: [enc(first), enc(second), enc(paid)],
    });
    expect(byId.get(enc(alone))).toMatchObject({
      is_grouped: false,
      group_debt_ids: [enc(alone)],
      payment_plan_active: false,
    });
    expect(byId.get(enc(cancelled))).toMatchObject({ is_grouped: false, group_debt_ids: [enc(alone), enc(cancelled)] });
    expect(byId.get(enc(ungrouped))).toMatchObject({
      is_grouped: false,
      group_debt_ids: [enc(ungrouped)],
      plan_start_date: null,
    });
  });

  it("needs debts:read", async () => {
    const response = await api.get(byCreditor(acme.creditor_id), noDebtScope);
    expect(response.status).toBe(403);
    expect(await expectContract(response, "get", BY_CREDITOR)).toEqual({
      error: true,
      code: 403,
      message: 'Required scope "debts:read" not found in token',
    });
  });
});

describe("GET /debts", () => {
  it("lists every debt of the company (all creditors), never another company's", async () => {
    const page = await list(`${ALL}?limit=100`, ALL);
    const mine = await t.db
      .selectFrom("debts")
      .select("id")
      .where("company_id", "=", acmeCompany)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
    expect(idsOf(page)).toEqual(mine.map((row) => enc(row.id)));
    expect(page.pagination.total).toBe(mine.length);
    expect(idsOf(page)).not.toContain(enc(globexKeys[0]!));
    for (const key of [...keysA, ...keysB]) expect(idsOf(page)).toContain(enc(key));
  });

  it("applies the same filters and pagination", async () => {
    const paidKeys = await t.db
      .selectFrom("debts")
      .select("id")
      .where("company_id", "=", acmeCompany)
      .where("status", "=", "status.default.paid")
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
    expect(paidKeys.length).toBeGreaterThanOrEqual(2);
    const paid = await list(`${ALL}?status=paid&limit=1&page=2`, ALL);
    expect(paid.pagination).toEqual({ total: paidKeys.length, page: 2, limit: 1, pages: paidKeys.length });
    expect(idsOf(paid)).toEqual([enc(paidKeys[1]!.id)]);
    const amounts = await list(`${ALL}?amount_min=75&currency=USD`, ALL);
    expect(idsOf(amounts)).toEqual([enc(keysA[3]!)]);
    const beyond = await list(`${ALL}?page=999`, ALL);
    expect(beyond.data).toEqual([]);
    const bad = await api.get(`${ALL}?limit=abc`, token);
    expect(bad.status).toBe(400);
    expect(Object.keys((await expectContract<Json>(bad, "get", ALL))["details"])).toEqual(["limit"]);
  });

  it("needs debts:read", async () => {
    const response = await api.get(ALL, noDebtScope);
    expect(response.status).toBe(403);
    expect((await expectContract<Json>(response, "get", ALL))["message"]).toBe(
      'Required scope "debts:read" not found in token',
    );
  });
});

describe("GET /debts/debtor/{debtorId}", () => {
  const path = (id: string, query = "") => `/external-api/v1/debts/debtor/${id}${query}`;

  it("lists the debtor's debts, newest first, paginated and filtered", async () => {
    const linked = keysA.filter((_, index) => index % 4 === 0);
    const page = await list(path(ids.encode("debtor", debtor)), BY_DEBTOR);
    expect(idsOf(page)).toEqual(newestFirst(linked));
    expect(page.pagination).toEqual({ total: 3, page: 1, limit: 20, pages: 1 });
    const second = await list(path(ids.encode("debtor", debtor), "?limit=2&page=2"), BY_DEBTOR);
    expect(idsOf(second)).toEqual([enc(linked[0]!)]);
    const filtered = await list(path(ids.encode("debtor", debtor), "?currency=JPY"), BY_DEBTOR);
    expect(idsOf(filtered)).toEqual([enc(keysA[4]!)]);
  });

  it("answers 404 for another company's, an unknown or an invalid debtor id", async () => {
    for (const id of [ids.encode("debtor", foreignDebtor), ids.encode("debtor", 31_337), "x", acme.creditor_id]) {
      const response = await api.get(path(id), token);
      expect(response.status).toBe(404);
      expect(await expectContract(response, "get", BY_DEBTOR)).toEqual({
        error: true,
        code: 404,
        message: "Debtor not found",
      });
    }
  });

  it("needs debts:read", async () => {
    const response = await api.get(path(ids.encode("debtor", debtor)), noDebtScope);
    expect(response.status).toBe(403);
  });
});

describe("every debt list", () => {
  const lists = () =>
    [
      [ALL, ALL],
      [byCreditor(acme.creditor_id), BY_CREDITOR],
      [`/external-api/v1/debts/creditor/${acme.creditor_id}`, ALIAS],
      [`/external-api/v1/debts/debtor/${ids.encode("debtor", debtor)}`, BY_DEBTOR],
    ] as const;

  it("accepts limit 100, answers an empty page beyond the end, and 400 on limit 101, page 0 or limit abc", async () => {
    for (const [path, template] of lists()) {
      const wide = await list(`${path}?limit=100`, template);
      expect(wide.pagination, path).toMatchObject({
        page: 1,
        limit: 100,
        pages: Math.ceil(wide.pagination.total / 100),
      });
      expect(wide.data.length).toBe(Math.min(wide.pagination.total, 100));
      const beyond = await list(`${path}?page=50&limit=100`, template);
      expect(beyond.data, path).toEqual([]);
      expect(beyond.pagination.total).toBe(wide.pagination.total);
      for (const [query, field] of [
        ["limit=101", "limit"],
        ["page=0", "page"],
        ["limit=abc", "limit"],
      ] as const) {
        const response = await api.get(`${path}?${query}`, token);
        expect(response.status, `${path}?${query}`).toBe(400);
        const body = await expectContract<Json>(response, "get", template);
        expect(body).toMatchObject({
          error: true,
          code: 400,
          message: "Validation failed",
          details: { [field]: expect.any(String) },
        });
      }
    }
  });

  it("answers 403 naming debts:read and 401 without a valid token", async () => {
    for (const [path, template] of lists()) {
      const forbidden = await api.get(path, noDebtScope);
      expect(forbidden.status).toBe(403);
      expect(await expectContract(forbidden, "get", template)).toEqual({
        error: true,
        code: 403,
        message: 'Required scope "debts:read" not found in token',
      });
      const anonymous = await t.get(path);
      expect(anonymous.status).toBe(401);
      expect(await expectContract(anonymous, "get", template)).toEqual({
        error: true,
        code: 401,
        message: "Authentication credentials are missing or invalid",
      });
    }
  });
});

describe("the hot-read pool (docs/decisions/0017)", () => {
  it("serves the lists and the single read on connections that plan generically", async () => {
    const { reads, db } = t.api.services;
    const mode = async (pool: typeof db) =>
      (await sql<{ mode: string }>`select current_setting('plan_cache_mode') as mode`.execute(pool)).rows[0]?.mode;
    expect(await mode(reads)).toBe("force_generic_plan");
    expect(await mode(db)).toBe("auto");

    /** The statements the reads pool's connections began after `since` (the server's clock). */
    const readsSince = async (since: Date) =>
      (
        await sql<{ query: string }>`
          select query from pg_stat_activity
          where datname = current_database() and application_name = 'debt-collection-api-reads'
            and query_start >= ${since.toISOString()}::timestamptz`.execute(t.db)
      ).rows.map((row) => row.query);
    const serverNow = async () =>
      (await sql<{ now: Date }>`select clock_timestamp() as now`.execute(t.db)).rows[0]?.now ?? new Date(0);

    const beforeList = await serverNow();
    expect((await api.get(byCreditor(acme.creditor_id, "?limit=5"), token)).status).toBe(200);
    expect((await readsSince(beforeList)).some((query) => query.includes("select meta.*"))).toBe(true);
    const [first] = ((await (await api.get(byCreditor(acme.creditor_id, "?limit=1"), token)).json()) as Page).data;
    const beforeRead = await serverNow();
    expect((await api.get(`/external-api/v1/debts/${String(first?.["id"])}`, token)).status).toBe(200);
    expect((await readsSince(beforeRead)).some((query) => query.includes("as collection_agency\n    from ("))).toBe(
      true,
    );
  });
});
