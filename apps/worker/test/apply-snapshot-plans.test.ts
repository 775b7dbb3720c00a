import { useTestDatabase } from "@dc/testing";
import { describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { applySnapshot } from "../src/snapshots/apply-snapshot.ts";
import {
  accountRow as row,
  type CampaignFixture,
  debtBy,
  debtsOf,
  fingerprint,
  insertCampaign,
  insertSnapshot,
  ledgerViolations,
  paymentsOf,
  plansOf,
  snapshotState,
  testIds, testLinks,
  snapshotKey,
} from "./snapshot-fixtures.ts";

const { db } = await useTestDatabase();
const now = new Date("2030-06-15T12:00:00.000Z");
const later = new Date("2030-06-16T08:00:00.000Z");
const apply = (id: number, at = now) => applySnapshot({ db, clock: fixedClock(at), ids: testIds, links: testLinks }, snapshotKey(id));

const pending = (reference: string, amount: number, date: string) => ({
  external_reference: reference,
  amount,
  payment_date: date,
  status: "pending",
});
const paid = (reference: string, amount: number, date: string, paidAt: string, paymentId: string) => ({
  external_reference: reference,
  amount,
  payment_date: date,
  status: "paid",
  paid_at: paidAt,
  external_payment_id: paymentId,
});
const plan = (reference: string, installments: ReadonlyArray<unknown>, status = "active") => ({
  external_reference: reference,
  status,
  installments,
});

const applyRows = async (campaign: CampaignFixture, rows: ReadonlyArray<unknown>, at = now) => {
  const id = await insertSnapshot(db, campaign, [rows]);
  const outcome = await apply(id, at);
  if (outcome.outcome !== "completed") throw new Error(`not completed: ${JSON.stringify(outcome)}`);
  return { id, counts: outcome.counts };
};

describe("applySnapshot: payment plans", () => {
  it("replaces a plan, records each paid installment once with its payment id, and keeps a plan a row omits", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, [
      row("a", 100, {
        payment_plan: plan("plan-1", [pending("1-b", 50, "2030-08-01"), pending("1-a", 50, "2030-07-01")]),
      }),
    ]);
    const debtId = debtBy(await debtsOf(db, campaign.campaignId), "a").id;
    expect(await plansOf(db, debtId)).toMatchObject([
      {
        external_reference: "plan-1",
        status: "active",
        source: "snapshot",
        start_date: "2030-07-01",
        ended_at: null,
        installments: [
          {
            position: 0,
            external_reference: "1-b",
            amount_minor: 5000,
            payment_date: "2030-08-01",
            status: "pending",
            paid_at: null,
            external_payment_id: null,
          },
          { position: 1, external_reference: "1-a", amount_minor: 5000, payment_date: "2030-07-01", status: "pending" },
        ],
      },
    ]);

    // The pending installments (60) sum to the new balance; one installment was paid (40).
    const second = [
      row("a", 60, {
        payment_plan: plan("plan-2", [
          paid("2-a", 40, "2030-06-01", "2030-06-01T10:00:00+02:00", "pay-1"),
          pending("2-b", 60, "2030-07-01"),
        ]),
      }),
    ];
    const replaced = await applyRows(campaign, second);
    expect(replaced.counts).toMatchObject({ updated: 1, plans_replaced: 1, payments: 1 });
    const plans = await plansOf(db, debtId);
    expect(plans.map((p) => [p.external_reference, p.status, p.ended_at])).toEqual([
      ["plan-1", "replaced", now],
      ["plan-2", "active", null],
    ]);
    const paidInstallment = plans[1]?.installments[0];
    expect(paidInstallment).toMatchObject({
      status: "paid",
      paid_at: "2030-06-01T08:00:00.000000Z",
      external_payment_id: "pay-1",
    });
    expect(await paymentsOf(db, debtId)).toEqual([
      {
        debt_id: debtId,
        installment_id: paidInstallment?.id,
        integration_client_pk: campaign.clientPk,
        snapshot_id: replaced.id,
        external_payment_id: "pay-1",
        provider: "snapshot",
        kind: "installment",
        amount_minor: 4000,
        currency: "EUR",
        status: "succeeded",
        paid_at: new Date("2030-06-01T08:00:00.000Z"),
      },
    ]);
    expect((await debtsOf(db, campaign.campaignId))[0]).toMatchObject({ amount_minor: 10000, balance_minor: 6000 });

    // The same plan again, with the instant written in another offset: nothing changes.
    const before = await fingerprint(db, campaign.companyId);
    const restated = [
      row("a", 60, {
        payment_plan: plan("plan-2", [
          paid("2-a", 40, "2030-06-01", "2030-06-01T08:00:00Z", "pay-1"),
          pending("2-b", 60, "2030-07-01"),
        ]),
      }),
    ];
    expect((await applyRows(campaign, restated)).counts).toMatchObject({
      rows: 1,
      unchanged: 1,
      updated: 0,
      plans_replaced: 0,
      payments: 0,
    });
    expect((await applyRows(campaign, [row("a", 60)])).counts).toMatchObject({
      unchanged: 1,
      plans_kept: 1,
      payments: 0,
    });
    expect(await fingerprint(db, campaign.companyId)).toBe(before);

    // A third plan restating pay-1 and adding pay-2: only pay-2 is recorded.
    const third = await applyRows(campaign, [
      row("a", 30, {
        payment_plan: plan("plan-3", [
          paid("3-a", 40, "2030-06-01", "2030-06-01T08:00:00Z", "pay-1"),
          paid("3-b", 30, "2030-07-01", "2030-07-01T08:00:00Z", "pay-2"),
          pending("3-c", 30, "2030-08-01"),
        ]),
      }),
    ]);
    expect(third.counts).toMatchObject({ updated: 1, plans_replaced: 1, payments: 1 });
    const payments = await paymentsOf(db, debtId);
    expect(payments.map((p) => [p.kind, p.external_payment_id, p.amount_minor])).toEqual([
      ["installment", "pay-1", 4000],
      ["installment", "pay-2", 3000],
    ]);
    expect(await ledgerViolations(db, campaign.companyId)).toEqual([]);
  });

  it("cancels the active plan when a row's plan is cancelled, leaving none", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, [row("a", 100, { payment_plan: plan("p", [pending("i", 100, "2030-07-01")]) })]);
    const { counts } = await applyRows(campaign, [
      row("a", 100, { payment_plan: plan("p", [pending("i", 100, "2030-07-01")], "cancelled") }),
    ]);
    expect(counts).toMatchObject({ updated: 1, plans_replaced: 1, payments: 0 });
    const debtId = debtBy(await debtsOf(db, campaign.campaignId), "a").id;
    expect((await plansOf(db, debtId)).map((p) => [p.status, p.ended_at])).toEqual([["cancelled", now]]);
    expect(
      (
        await applyRows(campaign, [
          row("a", 100, { payment_plan: plan("p", [pending("i", 100, "2030-07-01")], "cancelled") }),
        ])
      ).counts,
    ).toMatchObject({ unchanged: 1, plans_replaced: 0 });
  });

  it("creates a debt whose plan already shows paid installments with an amount that includes them", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, [
      row("a", 25, {
        payment_plan: plan("p", [
          paid("i-1", 75, "2030-05-01", "2030-05-01T00:00:00Z", "pay-a"),
          pending("i-2", 25, "2030-07-01"),
        ]),
      }),
    ]);
    const debt = debtBy(await debtsOf(db, campaign.campaignId), "a");
    expect([debt.amount_minor, debt.balance_minor, debt.amount_text]).toEqual([10000, 2500, "100.00"]);
    expect((await paymentsOf(db, debt.id)).map((p) => [p.kind, p.amount_minor, p.external_payment_id])).toEqual([
      ["installment", 7500, "pay-a"],
    ]);
    expect(await ledgerViolations(db, campaign.companyId)).toEqual([]);
  });

  it("records an installment payment id once per debt even when a later plan restates it, moving its amount to the direct record", async () => {
    const campaign = await insertCampaign(db);
    const first = plan("p1", [
      paid("i-1", 40, "2030-05-01", "2030-05-01T00:00:00Z", "pay-x"),
      pending("i-2", 60, "2030-07-01"),
    ]);
    await applyRows(campaign, [row("a", 60, { payment_plan: first })]);
    await applyRows(campaign, [row("a", 60, { payment_plan: plan("p2", [pending("j-1", 60, "2030-07-01")]) })]);
    // pay-x is not in the active plan any more, so the planner plans it again; the unique index refuses it.
    const { counts } = await applyRows(campaign, [
      row("a", 10, {
        payment_plan: plan("p3", [
          paid("k-1", 40, "2030-05-01", "2030-05-01T00:00:00Z", "pay-x"),
          pending("k-2", 10, "2030-08-01"),
        ]),
      }),
    ]);
    expect(counts).toMatchObject({ updated: 1, plans_replaced: 1, payments: 2 });
    const debtId = debtBy(await debtsOf(db, campaign.campaignId), "a").id;
    expect((await paymentsOf(db, debtId)).map((p) => [p.kind, p.external_payment_id, p.amount_minor])).toEqual([
      ["balance_delta", null, 5000],
      ["installment", "pay-x", 4000],
    ]);
    expect(await ledgerViolations(db, campaign.companyId)).toEqual([]);
  });
});

describe("applySnapshot: warnings and contacts", () => {
  it("ignores accept_expensive_destination whatever its JSON type and value: the same outcome as without it (contract 9.3)", async () => {
    const legacyValues = [true, false, "yes", 1, null, { accept: [true] }, [true]];
    const rows = (withLegacyKey: boolean) =>
      legacyValues.map((value, i) =>
        row(`legacy-${i}`, 10 + i, {
          phone: i % 2 === 0 ? "+88123456789" : "+33612345678",
          ...(withLegacyKey ? { accept_expensive_destination: value } : {}),
        }),
      );
    const outcome = async (withLegacyKey: boolean) => {
      const campaign = await insertCampaign(db);
      const { id, counts } = await applyRows(campaign, rows(withLegacyKey));
      const { warnings, warning_count } = await snapshotState(db, id);
      const debts = (await debtsOf(db, campaign.campaignId)).map(({ internal_id, balance_minor, status, phone }) => ({
        internal_id,
        balance_minor,
        status,
        phone,
      }));
      return { counts, warnings, warning_count, debts };
    };
    const without = await outcome(false);
    expect(without.counts).toMatchObject({ created: legacyValues.length, warnings: 4 });
    expect(await outcome(true)).toEqual(without);
  });

  it("warns about a costly phone destination when the campaign does not allow it, keeping the row", async () => {
    const campaign = await insertCampaign(db);
    const { id, counts } = await applyRows(campaign, [
      row("a", 10, { phone: "+88123456789" }),
      row("b", 10, { phone: "+33612345678" }),
    ]);
    expect(counts).toMatchObject({ created: 2, warnings: 1 });
    expect(await snapshotState(db, id)).toMatchObject({
      warnings: [
        {
          row_index: 0,
          code: "expensive_destination",
          field: "phone",
          message: "+88123456789 is a costly destination; the campaign configuration does not allow contacting it",
        },
      ],
      warning_count: 1,
      warnings_omitted: 0,
    });
    expect(debtBy(await debtsOf(db, campaign.campaignId), "a").phone).toBe("+88123456789");
  });

  it("does not warn when the campaign allows costly destinations", async () => {
    const campaign = await insertCampaign(db, { allowExpensiveDestinations: true });
    const { id, counts } = await applyRows(campaign, [row("a", 10, { phone: "+88123456789" })]);
    expect(counts).toMatchObject({ created: 1, warnings: 0 });
    expect(await snapshotState(db, id)).toMatchObject({ warnings: [], warning_count: 0 });
  });

  it("keeps the first 100 warnings and counts the rest", async () => {
    const campaign = await insertCampaign(db);
    const rows = Array.from({ length: 120 }, (_, i) =>
      row(`a-${i}`, 1, { phone: `+4490000${String(i).padStart(4, "0")}` }),
    );
    const { id } = await applyRows(campaign, rows);
    const state = await snapshotState(db, id);
    expect([state.warnings?.length, state.warning_count, state.warnings_omitted, state.counts?.["warnings"]]).toEqual([
      100, 120, 20, 120,
    ]);
  });

  it("refreshes matched debts' contact fields a row gives, keeping those it omits, and writes nothing else", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, [
      row("a", 10, { firstname: "Ada", lastname: "L", email: "ada@example.test", phone: "+33612345678" }),
      row("b", 10, { firstname: "Bob" }),
    ]);
    const before = await debtsOf(db, campaign.campaignId);
    const { counts } = await applyRows(
      campaign,
      [row("a", 10, { lastname: "Lovelace", phone: "+33700000000" }), row("b", 10, { firstname: "Bob" })],
      later,
    );
    expect(counts).toMatchObject({ unchanged: 2, updated: 0 });
    const after = await debtsOf(db, campaign.campaignId);
    expect(debtBy(after, "a")).toMatchObject({
      firstname: "Ada",
      lastname: "Lovelace",
      email: "ada@example.test",
      phone: "+33700000000",
      updated_at: later,
    });
    expect(debtBy(after, "b")).toEqual(debtBy(before, "b"));
  });
});
