import { randomUUID } from "node:crypto";
import type { Database } from "@dc/db";
import type { Insertable } from "kysely";
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

const PAYMENTS = "/external-api/v1/debts/{id}/payments";
const paymentsOf = (debtId: string, query = "") => `/external-api/v1/debts/${debtId}/payments${query}`;
const acmeCompany = rows.companyOf(acme);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;

/** Payments are written by the snapshot worker; the tests insert them directly. */
const payment = async (
  debtId: number,
  fields: Partial<Insertable<Database["payments"]>> = {},
  tenantCompany = acmeCompany,
) => {
  const id = randomUUID();
  await t.db
    .insertInto("payments")
    .values({
      id,
      company_id: tenantCompany,
      debt_id: debtId,
      provider: "internal",
      kind: "direct",
      amount_minor: 1_000,
      currency: "EUR",
      status: "succeeded",
      paid_at: new Date("2026-11-01T09:00:00Z"),
      ...fields,
    })
    .execute();
  return id;
};

const installmentsOf = async (planId: number) =>
  (
    await t.db
      .selectFrom("installments")
      .select("id")
      .where("payment_plan_id", "=", planId)
      .orderBy("position")
      .execute()
  ).map((row) => row.id);

interface PaymentPage {
  readonly error: false;
  readonly data: Json[];
  readonly pagination: { total: number; page: number; limit: number; pages: number };
}

const page = async (debtId: string, query = ""): Promise<PaymentPage> => {
  const response = await api.get(paymentsOf(debtId, query), token);
  expect(response.status, await response.clone().text()).toBe(200);
  const body = await expectContract<PaymentPage>(response, "get", PAYMENTS);
  expect(Object.keys(body).sort()).toEqual(["data", "error", "pagination"]);
  return body;
};

const list = async (debtId: string, query = ""): Promise<Json[]> => (await page(debtId, query)).data;

describe("GET /debts/{id}/payments", () => {
  it("lists the debt's payments newest first, in the shape of contract 2.7", async () => {
    const debt = await rows.debt(acme);
    const plan = await rows.paymentPlan(acme, debt, {}, [{ payment_date: "2026-11-10", status: "paid" }]);
    const [installment] = await installmentsOf(plan);
    const direct = await payment(debt, {
      external_payment_id: "PSP-1",
      provider: "stripe",
      amount_minor: 2_550,
      paid_at: new Date("2026-11-02T08:30:00Z"),
    });
    const paidInstallment = await payment(debt, {
      kind: "installment",
      installment_id: installment!,
      amount_minor: 1_000,
      paid_at: new Date("2026-11-10T12:00:00Z"),
    });
    const delta = await payment(debt, {
      kind: "balance_delta",
      provider: "snapshot",
      amount_minor: -500,
      status: "adjustment",
      paid_at: new Date("2026-10-01T00:00:00Z"),
    });
    const yen = await rows.debt(acme, {
      currency: "JPY",
      amount_minor: 5_000,
      balance_minor: 5_000,
      amount_text: "5000",
    });
    await payment(yen, { currency: "JPY", amount_minor: 1_500 });

    expect(await list(ids.encode("debt", debt))).toEqual([
      {
        id: paidInstallment,
        debt_id: ids.encode("debt", debt),
        installment_id: ids.encode("installment", installment!),
        external_payment_id: null,
        provider: "internal",
        amount: 10,
        currency: "EUR",
        status: "succeeded",
        paid_at: "2026-11-10T12:00:00+00:00",
      },
      {
        id: direct,
        debt_id: ids.encode("debt", debt),
        installment_id: null,
        external_payment_id: "PSP-1",
        provider: "stripe",
        amount: 25.5,
        currency: "EUR",
        status: "succeeded",
        paid_at: "2026-11-02T08:30:00+00:00",
      },
      {
        id: delta,
        debt_id: ids.encode("debt", debt),
        installment_id: null,
        external_payment_id: null,
        provider: "snapshot",
        amount: -5,
        currency: "EUR",
        status: "adjustment",
        paid_at: "2026-10-01T00:00:00+00:00",
      },
    ]);
    expect(await list(ids.encode("debt", yen))).toMatchObject([{ amount: 1500, currency: "JPY" }]);
    expect(await list(ids.encode("debt", await rows.debt(acme)))).toEqual([]);
  });

  it("filters by external_payment_id", async () => {
    const debt = await rows.debt(acme);
    const wanted = await payment(debt, { external_payment_id: "EXT-42" });
    await payment(debt, { external_payment_id: "EXT-43" });
    await payment(debt);
    expect((await list(ids.encode("debt", debt), "?external_payment_id=EXT-42")).map((row) => row["id"])).toEqual([
      wanted,
    ]);
    expect(await list(ids.encode("debt", debt), "?external_payment_id=NOPE")).toEqual([]);
    const empty = await api.get(paymentsOf(ids.encode("debt", debt), "?external_payment_id="), token);
    expect(empty.status).toBe(400);
    expect(Object.keys((await expectContract<Json>(empty, "get", PAYMENTS))["details"])).toEqual([
      "external_payment_id",
    ]);
  });

  it("pages the payments (contract 4.9): limit 20 by default, total counted after the filter", async () => {
    const debt = await rows.debt(acme);
    const id = ids.encode("debt", debt);
    const written: string[] = [];
    for (let day = 1; day <= 23; day++) {
      written.unshift(
        await payment(debt, {
          external_payment_id: day % 2 === 0 ? `EVEN-${day}` : null,
          paid_at: new Date(`2026-10-${String(day).padStart(2, "0")}T09:00:00Z`),
        }),
      );
    }
    const first = await page(id);
    expect(first.pagination).toEqual({ total: 23, page: 1, limit: 20, pages: 2 });
    expect(first.data.map((row) => row["id"])).toEqual(written.slice(0, 20));
    const second = await page(id, "?page=2");
    expect(second.pagination).toEqual({ total: 23, page: 2, limit: 20, pages: 2 });
    expect(second.data.map((row) => row["id"])).toEqual(written.slice(20));
    const small = await page(id, "?page=3&limit=5");
    expect(small.pagination).toEqual({ total: 23, page: 3, limit: 5, pages: 5 });
    expect(small.data.map((row) => row["id"])).toEqual(written.slice(10, 15));
    expect(await page(id, "?page=9")).toMatchObject({ data: [], pagination: { total: 23, page: 9, pages: 2 } });
    expect((await page(id, "?external_payment_id=EVEN-4")).pagination).toEqual({
      total: 1,
      page: 1,
      limit: 20,
      pages: 1,
    });

    for (const [query, field] of [
      ["?page=0", "page"],
      ["?limit=101", "limit"],
      ["?limit=abc", "limit"],
    ] as const) {
      const refused = await api.get(paymentsOf(id, query), token);
      expect(refused.status, query).toBe(400);
      expect(Object.keys((await expectContract<Json>(refused, "get", PAYMENTS))["details"])).toEqual([field]);
    }
  });

  it("shows a grouped debt the installment payments of the shared plan debt, but not its direct payments", async () => {
    const group = await t.db
      .insertInto("debt_groups")
      .values({ company_id: acmeCompany })
      .returning("id")
      .executeTakeFirstOrThrow();
    const planDebt = await rows.debt(acme, { group_id: group.id });
    const sibling = await rows.debt(acme, { group_id: group.id });
    const outsider = await rows.debt(acme);
    const plan = await rows.paymentPlan(acme, planDebt, { start_date: "2026-11-01" }, [
      { payment_date: "2026-11-01", status: "paid" },
      { payment_date: "2026-12-01", status: "paid" },
    ]);
    const [first, second] = await installmentsOf(plan);
    const installmentOne = await payment(planDebt, {
      kind: "installment",
      installment_id: first!,
      paid_at: new Date("2026-11-01T10:00:00Z"),
    });
    const installmentTwo = await payment(planDebt, {
      kind: "installment",
      installment_id: second!,
      paid_at: new Date("2026-12-01T10:00:00Z"),
    });
    const planDebtDirect = await payment(planDebt, { paid_at: new Date("2026-11-15T10:00:00Z") });
    const siblingDirect = await payment(sibling, { paid_at: new Date("2026-11-20T10:00:00Z") });
    await payment(outsider, { kind: "installment", installment_id: first!, paid_at: new Date("2026-11-05T10:00:00Z") });

    const seenBySibling = await list(ids.encode("debt", sibling));
    expect(seenBySibling.map((row) => row["id"])).toEqual([installmentTwo, siblingDirect, installmentOne]);
    expect(seenBySibling.find((row) => row["id"] === installmentOne)).toMatchObject({
      debt_id: ids.encode("debt", planDebt),
      installment_id: ids.encode("installment", first!),
    });
    const seenByPlanDebt = await list(ids.encode("debt", planDebt));
    expect(seenByPlanDebt.map((row) => row["id"])).toEqual([installmentTwo, planDebtDirect, installmentOne]);
  });

  it("answers 404 for another company's, an unknown, an invalid or a deleted debt", async () => {
    const foreign = await rows.debt(globex);
    await payment(foreign, {}, rows.companyOf(globex));
    const deleted = await rows.debt(acme);
    await payment(deleted);
    await t.db.deleteFrom("debts").where("id", "=", deleted).execute();
    for (const id of [
      ids.encode("debt", foreign),
      ids.encode("debt", deleted),
      ids.encode("debt", 8_888_888),
      "nope",
      acme.creditor_id,
    ]) {
      const response = await api.get(paymentsOf(id), token);
      expect(response.status).toBe(404);
      expect(await expectContract(response, "get", PAYMENTS)).toEqual({
        error: true,
        code: 404,
        message: "Debt not found",
      });
    }
    // The payment history of the deleted debt is kept.
    expect(await t.db.selectFrom("payments").select("id").where("debt_id", "=", deleted).execute()).toHaveLength(1);
  });

  it("needs debts:read", async () => {
    const debt = await rows.debt(acme);
    const response = await api.get(paymentsOf(ids.encode("debt", debt)), noDebtScope);
    expect(response.status).toBe(403);
    expect(await expectContract(response, "get", PAYMENTS)).toEqual({
      error: true,
      code: 403,
      message: 'Required scope "debts:read" not found in token',
    });
  });
});
