import { useTestDatabase } from "@dc/testing";
import { sql } from "kysely";
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
const deps = { db, clock: fixedClock(now), ids: testIds, links: testLinks };
const apply = (id: number) => applySnapshot(deps, snapshotKey(id));


const zeroCounts = {
  rows: 0,
  created: 0,
  updated: 0,
  unchanged: 0,
  settled: 0,
  plans_replaced: 0,
  plans_kept: 0,
  payments: 0,
  skipped_zero_balance: 0,
  warnings: 0,
};

/** Stores and applies a snapshot, failing unless it completed. */
const applyRows = async (campaign: CampaignFixture, rows: ReadonlyArray<unknown>): Promise<number> => {
  const id = await insertSnapshot(db, campaign, [rows]);
  expect(await apply(id)).toMatchObject({ outcome: "completed" });
  return id;
};

describe("applySnapshot: creations", () => {
  it("creates a debt per new row with a balance, attached to the campaign, its creditor and its timeline", async () => {
    const campaign = await insertCampaign(db);
    const id = await insertSnapshot(db, campaign, [
      [
        row("acc-1", 100.5, {
          invoice_reference: "inv-1",
          firstname: "Ada",
          lastname: "Lovelace",
          email: "ada@example.test",
          phone: "+33612345678",
        }),
        row("acc-2", 7, { accept_expensive_destination: "yes" }),
        row("acc-3", 0),
      ],
    ]);
    expect(await apply(id)).toEqual({
      outcome: "completed",
      snapshotId: id,
      companyId: campaign.companyId,
      campaignId: campaign.campaignId,
      counts: { ...zeroCounts, rows: 3, created: 2, skipped_zero_balance: 1 },
      warningCount: 0,
      paymentsRecorded: 0,
      webhookEvents: 0,
      webhookDeliveries: 0,
      phases: {
        readMs: expect.any(Number),
        validateMs: expect.any(Number),
        planMs: expect.any(Number),
        writeMs: expect.any(Number),
        eventsMs: expect.any(Number),
        enrollMs: expect.any(Number),
        statementMs: {
          insertDebts: expect.any(Number),
          updateDebts: expect.any(Number),
          endPlans: expect.any(Number),
          insertPlans: expect.any(Number),
          recordPayments: expect.any(Number),
        },
      },
    });

    const debts = await debtsOf(db, campaign.campaignId);
    expect(debts).toHaveLength(2);
    expect(debtBy(debts, "acc-1")).toMatchObject({
      invoice_reference: "inv-1",
      amount_minor: 10050,
      balance_minor: 10050,
      amount_text: "100.50",
      currency: "EUR",
      status: "status.default.pending",
      firstname: "Ada",
      lastname: "Lovelace",
      email: "ada@example.test",
      phone: "+33612345678",
      creditor_id: campaign.creditorId,
      timeline_id: campaign.timelineId,
      import_date: now,
    });
    expect(debtBy(debts, "acc-2")).toMatchObject({
      amount_minor: 700,
      balance_minor: 700,
      amount_text: "7.00",
      phone: null,
    });
    expect(await paymentsOf(db, debtBy(debts, "acc-1").id)).toEqual([]);

    expect(await snapshotState(db, id)).toEqual({
      status: "completed",
      core_applied: true,
      counts: { ...zeroCounts, rows: 3, created: 2, skipped_zero_balance: 1 },
      failure: null,
      warnings: [],
      warning_count: 0,
      warnings_omitted: 0,
      completed_at: now,
    });
  });

  it("numbers rows across chunks and creates the rows of every chunk", async () => {
    const campaign = await insertCampaign(db);
    const id = await insertSnapshot(db, campaign, [[row("a", 1), row("b", 2)], [row("c", 3)], [row("d", 4)]]);
    expect(await apply(id)).toMatchObject({ outcome: "completed", counts: { rows: 4, created: 4 } });
    expect((await debtsOf(db, campaign.campaignId)).map((debt) => [debt.internal_id, debt.balance_minor])).toEqual([
      ["a", 100],
      ["b", 200],
      ["c", 300],
      ["d", 400],
    ]);
  });
});

describe("applySnapshot: balances", () => {
  it("records decreases as payments and increases as adjustments, pays off zero balances and reopens paid debts", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, [row("down", 100), row("up", 100), row("zero", 100), row("reopen", 50)]);
    const second = await applyRows(campaign, [row("down", 100), row("up", 100), row("zero", 100), row("reopen", 0)]);
    const third = await insertSnapshot(db, campaign, [
      [row("down", 70.01), row("up", 130), row("zero", 0), row("reopen", 20)],
    ]);
    expect(await apply(third)).toMatchObject({
      outcome: "completed",
      counts: { ...zeroCounts, rows: 4, updated: 4, payments: 4 },
      paymentsRecorded: 4,
    });

    const debts = await debtsOf(db, campaign.campaignId);
    expect(debts.map((debt) => [debt.internal_id, debt.amount_minor, debt.balance_minor, debt.status])).toEqual([
      ["down", 10000, 7001, "status.default.pending"],
      ["up", 10000, 13000, "status.default.pending"],
      ["zero", 10000, 0, "status.default.paid"],
      ["reopen", 5000, 2000, "status.default.in_progress"],
    ]);
    const common = {
      installment_id: null,
      integration_client_pk: campaign.clientPk,
      external_payment_id: null,
      provider: "snapshot",
      kind: "balance_delta",
      currency: "EUR",
      paid_at: now,
    };
    expect(await paymentsOf(db, debtBy(debts, "down").id)).toEqual([
      { ...common, debt_id: debtBy(debts, "down").id, snapshot_id: third, amount_minor: 2999, status: "succeeded" },
    ]);
    expect(await paymentsOf(db, debtBy(debts, "up").id)).toEqual([
      { ...common, debt_id: debtBy(debts, "up").id, snapshot_id: third, amount_minor: -3000, status: "adjustment" },
    ]);
    expect(await paymentsOf(db, debtBy(debts, "zero").id)).toEqual([
      { ...common, debt_id: debtBy(debts, "zero").id, snapshot_id: third, amount_minor: 10000, status: "succeeded" },
    ]);
    expect(await paymentsOf(db, debtBy(debts, "reopen").id)).toEqual([
      { ...common, debt_id: debtBy(debts, "reopen").id, snapshot_id: third, amount_minor: -2000, status: "adjustment" },
      { ...common, debt_id: debtBy(debts, "reopen").id, snapshot_id: second, amount_minor: 5000, status: "succeeded" },
    ]);
    expect(await ledgerViolations(db, campaign.companyId)).toEqual([]);
  });

  it("settles every omitted active debt, cancelling its plan, and nothing else", async () => {
    const campaign = await insertCampaign(db);
    const plan = {
      external_reference: "plan-b",
      status: "active",
      installments: [{ external_reference: "b-1", amount: 80, payment_date: "2030-07-01", status: "pending" }],
    };
    await applyRows(campaign, [
      row("kept", 10),
      row("omitted", 80, { payment_plan: plan }),
      row("omitted-pending", 5),
      row("disputed", 30),
      row("cancelled", 40),
      row("paid", 0.5),
    ]);
    let debts = await debtsOf(db, campaign.campaignId);
    await sql`update debts set status = 'status.default.in_progress' where id = ${debtBy(debts, "omitted").id}`.execute(
      db,
    );
    await sql`update debts set status = 'status.default.disputed' where id = ${debtBy(debts, "disputed").id}`.execute(
      db,
    );
    await sql`update debts set status = 'status.default.cancelled' where id = ${debtBy(debts, "cancelled").id}`.execute(
      db,
    );
    await applyRows(campaign, [
      row("kept", 10),
      row("omitted", 80),
      row("omitted-pending", 5),
      row("disputed", 30),
      row("cancelled", 40),
      row("paid", 0),
    ]);
    const before = await debtsOf(db, campaign.campaignId);

    const id = await insertSnapshot(db, campaign, [[row("kept", 10)]]);
    expect(await apply(id)).toMatchObject({
      outcome: "completed",
      counts: { ...zeroCounts, rows: 1, unchanged: 1, settled: 2, payments: 2 },
    });
    debts = await debtsOf(db, campaign.campaignId);
    expect(debts.map((debt) => [debt.internal_id, debt.balance_minor, debt.status])).toEqual([
      ["kept", 1000, "status.default.pending"],
      ["omitted", 0, "status.default.paid"],
      ["omitted-pending", 0, "status.default.paid"],
      ["disputed", 3000, "status.default.disputed"],
      ["cancelled", 4000, "status.default.cancelled"],
      ["paid", 0, "status.default.paid"],
    ]);
    for (const untouched of ["kept", "disputed", "cancelled", "paid"]) {
      expect(debtBy(debts, untouched).updated_at).toEqual(debtBy(before, untouched).updated_at);
    }
    expect(await paymentsOf(db, debtBy(debts, "omitted").id)).toMatchObject([
      { kind: "settlement", amount_minor: 8000, status: "succeeded", snapshot_id: id, paid_at: now },
    ]);
    expect(await paymentsOf(db, debtBy(debts, "omitted-pending").id)).toMatchObject([
      { kind: "settlement", amount_minor: 500, status: "succeeded", snapshot_id: id },
    ]);
    expect(await plansOf(db, debtBy(debts, "omitted").id)).toMatchObject([
      { external_reference: "plan-b", status: "cancelled", ended_at: now },
    ]);
    expect(await ledgerViolations(db, campaign.companyId)).toEqual([]);
  });
});

describe("applySnapshot: exactly once", () => {
  it("an identical second snapshot changes nothing: every row is unchanged", async () => {
    const campaign = await insertCampaign(db);
    const rows = [
      row("a", 10, { firstname: "A", phone: "+33612345678" }),
      row("b", 0.01, { invoice_reference: "inv-b", email: "b@example.test" }),
      row("c", 99.99, {
        payment_plan: {
          external_reference: "plan-c",
          status: "active",
          installments: [
            {
              external_reference: "c-1",
              amount: 50,
              payment_date: "2030-05-01",
              status: "paid",
              paid_at: "2030-05-01T09:15:00.1234567+02:00",
              external_payment_id: "pay-c-1",
            },
            { external_reference: "c-2", amount: 99.99, payment_date: "2030-06-01", status: "pending" },
          ],
        },
      }),
    ];
    await applyRows(campaign, rows);
    const before = await fingerprint(db, campaign.companyId);
    const id = await insertSnapshot(db, campaign, [rows]);
    expect(await apply(id)).toMatchObject({
      outcome: "completed",
      // Row c restates its active plan unchanged: the plan is kept.
      counts: { ...zeroCounts, rows: 3, unchanged: 3, plans_kept: 1 },
    });
    expect(await fingerprint(db, campaign.companyId)).toBe(before);
  });

  it("re-running an applied or failed snapshot changes nothing", async () => {
    const campaign = await insertCampaign(db);
    const applied = await applyRows(campaign, [row("a", 10)]);
    const failed = await insertSnapshot(db, campaign, [[row("a", 10, { currency: "SEK" })]]);
    expect(await apply(failed)).toMatchObject({ outcome: "failed" });
    const before = await fingerprint(db, campaign.companyId);
    const states = [await snapshotState(db, applied), await snapshotState(db, failed)];

    expect(await apply(applied)).toMatchObject({ outcome: "skipped", status: "completed" });
    expect(await apply(failed)).toMatchObject({ outcome: "skipped", status: "failed" });
    expect(await fingerprint(db, campaign.companyId)).toBe(before);
    expect([await snapshotState(db, applied), await snapshotState(db, failed)]).toEqual(states);
  });

  it("finds no snapshot of another company by its id, and changes nothing of either company (DESIGN 6)", async () => {
    const owner = await insertCampaign(db);
    const other = await insertCampaign(db);
    const id = await insertSnapshot(db, owner, [[row("a", 10)]]);
    expect(await applySnapshot(deps, { companyId: other.companyId, id })).toEqual({
      outcome: "not_found",
      snapshotId: id,
    });
    expect(await snapshotState(db, id)).toMatchObject({ status: "pending", core_applied: false });
    expect(await debtsOf(db, owner.campaignId)).toEqual([]);
    expect(await apply(id)).toMatchObject({ outcome: "completed" });
  });

  it("does nothing for an unknown snapshot or one still uploading", async () => {
    const campaign = await insertCampaign(db);
    expect(await applySnapshot(deps, { companyId: campaign.companyId, id: 999_999 })).toEqual({
      outcome: "not_found",
      snapshotId: 999_999,
    });
    const id = await insertSnapshot(db, campaign, [[row("a", 10)]]);
    await sql`update snapshots set status = 'uploading' where id = ${id}`.execute(db);
    expect(await apply(id)).toMatchObject({ outcome: "skipped", status: "uploading" });
    expect(await debtsOf(db, campaign.campaignId)).toEqual([]);
  });
});
