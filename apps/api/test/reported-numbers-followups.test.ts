/**
 * The numbers the api reports about followups and the company, checked
 * against the rows: `GET /company/credits` after followups recorded through
 * the api (contract 2.5, docs/decisions/0152), `GET /company/statistics`
 * (docs/decisions/0154) and `pagination.total` of the followup, debtor,
 * creditor and payment lists (contract 4.9). Expected numbers come from plain
 * SQL over the tables.
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { CreatedTenant } from "../src/admin/tenants.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const api = jsonApi(t.request);

const DEBTS = "/external-api/v1/debts";
const FOLLOWUPS = "/external-api/v1/followups";
const CREDITS = "/external-api/v1/company/credits";
const STATISTICS = "/external-api/v1/company/statistics";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;

let tenants = 0;
/** A fresh company (its own balance and counts), its token and one debt. */
const company = async () => {
  tenants += 1;
  const tenant: CreatedTenant = await t.tenant(`Numbers Co ${tenants}`);
  const token = await t.token(tenant);
  const key = ids.decode("company", tenant.company_id)!;
  const debt = await createDebt(token, tenant);
  return { tenant, token, key, debt };
};

const createDebt = async (token: string, tenant: CreatedTenant, body: Json = {}): Promise<string> => {
  const response = await api.post(DEBTS, token, {
    creditor_id: tenant.creditor_id,
    lastname: "Doe",
    amount: 50,
    currency: "EUR",
    ...body,
  });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as Json)["data"]["id"] as string;
};

const createFollowup = async (token: string, body: Json): Promise<Json> => {
  const response = await api.post(FOLLOWUPS, token, body);
  if (response.status !== 201) throw new Error(`followup failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as Json)["data"] as Json;
};

const updateFollowup = async (token: string, id: string, body: Json): Promise<Json> => {
  const response = await api.patch(`${FOLLOWUPS}/${id}`, token, body);
  if (response.status !== 200) throw new Error(`update failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as Json)["data"] as Json;
};

const reportedCredits = async (token: string): Promise<number> =>
  (await expectContract<Json>(await api.get(CREDITS, token), "get", CREDITS))["data"]["current_credits"] as number;

/** The initial balance plus the ledger, and the charges recorded on the followups, from the rows. */
const ledger = async (companyKey: number) => {
  const { rows } = await sql<{ ledger: string; charged: string; rows: string }>`
    select (select coalesce(sum(delta), 0) from credit_transactions where company_id = ${companyKey})::text as ledger,
      (select coalesce(sum(credits_charged), 0) from followups where company_id = ${companyKey})::text as charged,
      (select count(*) from credit_transactions where company_id = ${companyKey})::text as rows`.execute(t.db);
  return { ledger: Number(rows[0]!.ledger), charged: Number(rows[0]!.charged), rows: Number(rows[0]!.rows) };
};

const INITIAL_CREDITS = 100;

describe("credits against the rows", () => {
  it("charge each executed call, SMS and WhatsApp once by 2.5's rules, and nothing else", async () => {
    const { token, key, debt } = await company();
    expect(await reportedCredits(token)).toBe(INITIAL_CREDITS);
    const cases: Array<{ body: Json; cost: number }> = [
      { body: { type: "call", status: "delivered", duration_ms: 0 }, cost: 1 },
      { body: { type: "call", status: "no_answer" }, cost: 1 },
      { body: { type: "call", status: "deal_found", duration_ms: 60_000 }, cost: 1 },
      { body: { type: "call", status: "deal_found", duration_ms: 60_001 }, cost: 2 },
      { body: { type: "call", status: "sent", duration_ms: 299_999 }, cost: 5 },
      { body: { type: "call", status: "sent", duration_ms: 3_600_000 }, cost: 5 },
      { body: { type: "manual_call", status: "bad_behavior", duration_ms: 130_000 }, cost: 3 },
      { body: { type: "voicemail", status: "deal_not_found", duration_ms: 10_000 }, cost: 1 },
      { body: { type: "sms", status: "sent" }, cost: 1 },
      { body: { type: "whatsapp", status: "delivered" }, cost: 1 },
      { body: { type: "email", status: "sent" }, cost: 0 },
      { body: { type: "postmail", status: "delivered" }, cost: 0 },
      { body: { type: "physical", status: "deal_found" }, cost: 0 },
      { body: { type: "call", status: "failed", duration_ms: 90_000 }, cost: 0 },
      { body: { type: "sms", status: "cancelled" }, cost: 0 },
      { body: { type: "whatsapp" }, cost: 0 },
      { body: { type: "call", status: "in_progress", duration_ms: 90_000 }, cost: 0 },
      { body: { type: "sms", status: "scheduled" }, cost: 0 },
    ];
    let expected = INITIAL_CREDITS;
    for (const { body, cost } of cases) {
      const followup = await createFollowup(token, { debt_id: debt, ...body });
      expect({ body, charged: followup["credits_charged"] }).toEqual({ body, charged: cost });
      expected -= cost;
      expect(await reportedCredits(token)).toBe(expected);
    }
    const rows = await ledger(key);
    expect(rows.ledger).toBe(expected - INITIAL_CREDITS);
    expect(rows.charged).toBe(INITIAL_CREDITS - expected);
    expect(rows.rows).toBe(cases.filter((item) => item.cost > 0).length);
  });

  it("charge a followup updated to executed once, whatever its later updates, and never refund", async () => {
    const { token, key, debt } = await company();
    const sms = await createFollowup(token, { debt_id: debt, type: "sms" });
    const call = await createFollowup(token, { debt_id: debt, type: "call", status: "scheduled" });
    expect(await reportedCredits(token)).toBe(INITIAL_CREDITS);
    await updateFollowup(token, sms["id"], { status: "in_progress" });
    expect(await reportedCredits(token)).toBe(INITIAL_CREDITS);
    await updateFollowup(token, sms["id"], { status: "sent" });
    await updateFollowup(token, sms["id"], { status: "delivered" });
    await updateFollowup(token, sms["id"], { status: "failed" });
    await updateFollowup(token, sms["id"], { status: "delivered", type: "whatsapp" });
    expect(await reportedCredits(token)).toBe(INITIAL_CREDITS - 1);
    const executed = await updateFollowup(token, call["id"], { status: "deal_found", duration_ms: 121_000 });
    expect(executed["credits_charged"]).toBe(3);
    await updateFollowup(token, call["id"], { duration_ms: 299_000 });
    await updateFollowup(token, call["id"], { status: "cancelled" });
    expect(await reportedCredits(token)).toBe(INITIAL_CREDITS - 4);
    expect(await ledger(key)).toEqual({ ledger: -4, charged: 4, rows: 2 });
  });

  it("charge once when two concurrent updates both record the followup as executed", async () => {
    const { token, key, debt } = await company();
    const calls = await Promise.all(
      Array.from({ length: 5 }, () => createFollowup(token, { debt_id: debt, type: "call", duration_ms: 90_000 })),
    );
    await Promise.all(
      calls.flatMap((call) => [
        updateFollowup(token, call["id"], { status: "sent" }),
        updateFollowup(token, call["id"], { status: "delivered" }),
      ]),
    );
    expect(await reportedCredits(token)).toBe(INITIAL_CREDITS - 10);
    expect(await ledger(key)).toEqual({ ledger: -10, charged: 10, rows: 5 });
  });

  it("go negative rather than lose an executed followup", async () => {
    const { token, key, debt } = await company();
    await sql`update companies set current_credits = 1 where id = ${key}`.execute(t.db);
    await createFollowup(token, { debt_id: debt, type: "call", status: "sent", duration_ms: 200_000 });
    expect(await reportedCredits(token)).toBe(-3);
  });
});

describe("company statistics against the rows", () => {
  it("count every debt and followup of the company after creates, a batch and a delete", async () => {
    const { tenant, token, key, debt } = await company();
    const other = await company();
    const second = await createDebt(token, tenant, { credited_invoice_reference: undefined });
    await api.post(`${DEBTS}/batch`, token, {
      creditor_id: tenant.creditor_id,
      debts: [
        { lastname: "A", amount: 1, currency: "EUR", internal_id: "S-1" },
        { lastname: "B", amount: 1, currency: "EUR", internal_id: "S-1" },
        { lastname: "C", amount: -1, currency: "EUR" },
      ],
    });
    await createFollowup(token, { debt_id: debt, type: "email" });
    await createFollowup(token, { debt_id: second, type: "sms" });
    await createFollowup(token, { debt_id: second, type: "sms" });
    await createFollowup(other.token, { debt_id: other.debt, type: "sms" });
    expect((await api.del(`${DEBTS}/${second}`, token)).status).toBe(200);
    const { rows } = await sql<{ debts: string; followups: string }>`
      select (select count(*) from debts where company_id = ${key})::text as debts,
        (select count(*) from followups where company_id = ${key})::text as followups`.execute(t.db);
    const body = await expectContract<Json>(await api.get(STATISTICS, token), "get", STATISTICS);
    expect(body["data"]).toEqual({
      debts: { total: Number(rows[0]!.debts) },
      followups: { total: Number(rows[0]!.followups) },
    });
    expect(body["data"]).toEqual({ debts: { total: 2 }, followups: { total: 1 } });
  });
});

describe("list totals against the rows", () => {
  it("count the filtered followups, debtors, creditors and payments", async () => {
    const { tenant, token, key, debt } = await company();
    const debtKey = ids.decode("debt", debt)!;
    const other = await createDebt(token, tenant, { debtor_reference: "D-1" });
    await createDebt(token, tenant, { debtor_reference: "D-2" });
    await createDebt(token, tenant, { debtor_reference: "D-1" });
    const statuses = ["sent", "on_hold", "delivered", "failed"];
    const types = ["sms", "call", "email"];
    for (let i = 0; i < 24; i += 1) {
      t.clock.set(new Date(Date.UTC(2026, 10, 21 + (i % 4), 23, 59, 59, 999 * (i % 2))));
      await createFollowup(await t.token(tenant), {
        debt_id: i % 3 === 0 ? other : debt,
        type: types[i % 3],
        status: statuses[i % 4],
      });
    }
    const reader = await t.token(tenant);
    const total = async (path: string) => {
      const response = await api.get(path, reader);
      expect(response.status).toBe(200);
      return ((await response.json()) as Json)["pagination"]["total"] as number;
    };
    const count = async (table: string, where: string) => {
      const { rows } = await sql<{ n: string }>`
        select count(*)::text as n from ${sql.table(table)} where company_id = ${key} and ${sql.raw(where)}`.execute(
        t.db,
      );
      return Number(rows[0]!.n);
    };
    const followupCases: Array<[string, string]> = [
      ["", "true"],
      ["status=sent", "status = 'sent'"],
      ["type=call", "type = 'call'"],
      ["status=delivered&type=email", "status = 'delivered' and type = 'email'"],
      ["date_from=2026-11-22", "created_at >= '2026-11-22T00:00:00Z'"],
      ["date_to=2026-11-22", "created_at < '2026-11-23T00:00:00Z'"],
      [
        "date_from=2026-11-22&date_to=2026-11-23",
        "created_at >= '2026-11-22T00:00:00Z' and created_at < '2026-11-24T00:00:00Z'",
      ],
      [`debt_id=${debt}`, `debt_id = ${debtKey}`],
      [`debt_id=${debt}&status=failed`, `debt_id = ${debtKey} and status = 'failed'`],
    ];
    for (const [query, where] of followupCases) {
      expect({ query, total: await total(`${FOLLOWUPS}?limit=1&${query}`) }).toEqual({
        query,
        total: await count("followups", where),
      });
    }
    expect(await total(`${FOLLOWUPS}/debt/${debt}?limit=1&type=sms`)).toBe(
      await count("followups", `debt_id = ${debtKey} and type = 'sms'`),
    );
    expect(await total("/external-api/v1/debtors?limit=1")).toBe(await count("debtors", "true"));
    expect(await total("/external-api/v1/debtors?limit=1")).toBe(2);
    expect(await total("/external-api/v1/creditors?limit=1")).toBe(await count("creditors", "true"));
    expect(await total(`${DEBTS}/${debt}/payments?limit=1`)).toBe(await count("payments", `debt_id = ${debtKey}`));
  });
});
