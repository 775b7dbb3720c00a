import {
  applyReconciliationPlan,
  canonicalInstant,
  ConcurrentDebtChange,
  loadCampaignDebts,
  loadSnapshotChunks,
  updateSnapshotDebts,
} from "@dc/db";
import { DebtStatus, Reconciliation } from "@dc/domain";
import { useTestDatabase } from "@dc/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { applySnapshot } from "../src/snapshots/apply-snapshot.ts";
import { readSnapshotRows } from "../src/snapshots/read-rows.ts";
import { SnapshotUnprocessable } from "../src/snapshots/errors.ts";
import {
  accountRow as row,
  type CampaignFixture,
  debtsOf,
  fingerprint,
  insertCampaign,
  insertSnapshot,
  snapshotState,
  testIds, testLinks,
  snapshotKey,
} from "./snapshot-fixtures.ts";

const { db } = await useTestDatabase();
const now = new Date("2030-06-15T12:00:00.000Z");
const apply = (id: number) => applySnapshot({ db, clock: fixedClock(now), ids: testIds, links: testLinks }, snapshotKey(id));

/** Stores and applies a snapshot, failing unless it completed. */
const applyRows = async (campaign: CampaignFixture, rows: ReadonlyArray<unknown>): Promise<number> => {
  const id = await insertSnapshot(db, campaign, [rows]);
  expect(await apply(id)).toMatchObject({ outcome: "completed" });
  return id;
};

describe("applySnapshot: rejected snapshots", () => {
  it("fails with invalid_snapshot_row, listing every error in row order, and changes no debt", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, [
      row("a", 10, { invoice_reference: "inv-a" }),
      row("b", 20, { invoice_reference: "inv-b" }),
    ]);
    const before = await fingerprint(db, campaign.companyId);
    const id = await insertSnapshot(db, campaign, [
      [row("a", 10, { invoice_reference: "inv-a", currency: "USD" }), row("b", 5, { invoice_reference: "inv-a" })],
      [row("c", -1), row("d", 1), row("d", 2)],
    ]);
    expect(await apply(id)).toEqual({
      outcome: "failed",
      code: "invalid_snapshot_row",
      errorCount: 5,
      snapshotId: id,
      companyId: campaign.companyId,
      campaignId: campaign.campaignId,
    });
    const state = await snapshotState(db, id);
    expect(state).toMatchObject({ status: "failed", core_applied: false, counts: null, completed_at: now });
    expect(state.failure).toEqual({
      code: "invalid_snapshot_row",
      message: "The snapshot has 5 invalid row errors; no debt was changed.",
      errors: [
        { row_index: 0, field: "currency", reason: "is USD but the debt is in EUR" },
        {
          row_index: 1,
          field: "invoice_reference",
          reason: 'duplicate invoice_reference "inv-a" (first used by row 0)',
        },
        { row_index: 1, field: "invoice_reference", reason: '"inv-a" belongs to another debt' },
        { row_index: 2, field: "remaining_amount", reason: "must be greater than or equal to 0" },
        { row_index: 4, field: "internal_id", reason: 'duplicate internal_id "d" (first used by row 3)' },
      ],
      error_count: 5,
      errors_omitted: 0,
    });
    expect(await fingerprint(db, campaign.companyId)).toBe(before);
  });

  it("keeps the first 100 errors and counts the rest", async () => {
    const campaign = await insertCampaign(db);
    const rows = Array.from({ length: 150 }, (_, i) => row(`x-${i}`, 1, { email: "not an e-mail" }));
    const id = await insertSnapshot(db, campaign, [rows]);
    expect(await apply(id)).toMatchObject({ outcome: "failed", errorCount: 150 });
    const { failure } = await snapshotState(db, id);
    expect(failure?.errors).toHaveLength(100);
    expect(failure?.errors[99]).toEqual({ row_index: 99, field: "email", reason: "must be a valid e-mail address" });
    expect([failure?.error_count, failure?.errors_omitted]).toEqual([150, 50]);
    expect(await debtsOf(db, campaign.campaignId)).toEqual([]);
  });

  it("refuses instants and dates PostgreSQL cannot store, as row errors", async () => {
    const campaign = await insertCampaign(db);
    const plan = {
      external_reference: "p",
      status: "active",
      installments: [
        {
          external_reference: "i-1",
          amount: 1,
          payment_date: "0000-12-31",
          status: "paid",
          paid_at: "0001-01-01T00:30:00+01:00",
          external_payment_id: "x",
        },
        { external_reference: "i-2", amount: 1, payment_date: "2030-01-01", status: "pending" },
      ],
    };
    const id = await insertSnapshot(db, campaign, [[row("a", 1, { payment_plan: plan })]]);
    expect(await apply(id)).toMatchObject({ outcome: "failed", errorCount: 2 });
    expect((await snapshotState(db, id)).failure?.errors).toEqual([
      { row_index: 0, field: "payment_plan.installments.0.payment_date", reason: "must be 0001-01-01 or later" },
      {
        row_index: 0,
        field: "payment_plan.installments.0.paid_at",
        reason: "must be an instant between the years 0001 and 9999",
      },
    ]);
  });

  it("fails a plan whose paid installments would make a debt larger than the largest amount, without throwing", async () => {
    // The debt's amount would be 21 x 9,999,999,999,999.99 EUR: its cents are no safe integer, and the apply threw.
    const campaign = await insertCampaign(db);
    const paid = (i: number) => ({
      external_reference: `paid-${i}`,
      amount: 9999999999999.99,
      payment_date: "2030-01-01",
      status: "paid",
      paid_at: "2030-01-01T10:00:00Z",
      external_payment_id: `pay-${i}`,
    });
    const plan = {
      external_reference: "p",
      status: "active",
      installments: [
        { external_reference: "due", amount: 9999999999999.99, payment_date: "2030-07-01", status: "pending" },
        ...Array.from({ length: 20 }, (_, i) => paid(i)),
      ],
    };
    const id = await insertSnapshot(db, campaign, [[row("a", 9999999999999.99, { payment_plan: plan })]]);
    expect(await apply(id)).toMatchObject({ outcome: "failed", code: "invalid_snapshot_row", errorCount: 1 });
    expect((await snapshotState(db, id)).failure?.errors).toEqual([
      {
        row_index: 0,
        field: "payment_plan",
        reason: "remaining_amount plus the paid installments exceeds the largest amount (9999999999999.99)",
      },
    ]);
    expect(await debtsOf(db, campaign.campaignId)).toEqual([]);
  });

  it("throws SnapshotUnprocessable, writing nothing, when a stored chunk is missing", async () => {
    const campaign = await insertCampaign(db);
    const id = await insertSnapshot(db, campaign, [[row("a", 1)], [row("b", 1)]]);
    await sql`delete from snapshot_chunks where snapshot_id = ${id} and chunk_index = 0`.execute(db);
    await sql`update snapshots set received_chunk_count = 1 where id = ${id}`.execute(db);
    await expect(apply(id)).rejects.toBeInstanceOf(SnapshotUnprocessable);
    expect(await snapshotState(db, id)).toMatchObject({ status: "processing", core_applied: false, failure: null });
    expect(await debtsOf(db, campaign.campaignId)).toEqual([]);
  });
});

describe("readSnapshotRows: stored bodies with escaped keys", () => {
  it("reads a key written with escapes as the key it stands for, whatever V8's JSON.parse cached before", () => {
    // nodejs/node#63785: JSON.parse takes an escaped key for a cached key of its decoded length that its
    // raw text begins with: after this text, the row's last key "\u0069nternal_id" read as "\\u0069ntern".
    JSON.parse(String.raw`{"rows":[{"lastname":"A","remaining_amount":1,"currency":"EUR","\\u0069ntern":1}]}`);
    const body = String.raw`{"rows":[{"lastname":"A","remaining_amount":10,"currency":"EUR","\u0069nternal_id":"acct-1"}]}`;
    const { rows, errors } = readSnapshotRows([{ chunk_index: 0, body }], 1);
    expect(errors).toEqual([]);
    expect(rows.map((row) => row.internalId)).toEqual(["acct-1"]);
  });
});

describe("canonicalInstant", () => {
  it("writes any offset as UTC with six decimals, dropping digits past the sixth", () => {
    expect(canonicalInstant("2024-05-01T10:00+02:00")).toBe("2024-05-01T08:00:00.000000Z");
    expect(canonicalInstant("2024-05-01T08:00:00Z")).toBe("2024-05-01T08:00:00.000000Z");
    expect(canonicalInstant("2024-12-31T23:30:00.1234567-05:30")).toBe("2025-01-01T05:00:00.123456Z");
    expect(canonicalInstant("0099-03-01T00:00:00Z")).toBe("0099-03-01T00:00:00.000000Z");
  });

  it("refuses what is not an ISO date-time or falls outside the years 0001-9999", () => {
    expect(canonicalInstant("2024-05-01")).toBeUndefined();
    expect(canonicalInstant("0001-01-01T00:30:00+01:00")).toBeUndefined();
    expect(canonicalInstant("9999-12-31T23:30:00-01:00")).toBeUndefined();
  });

  it("agrees with PostgreSQL's rendering of the stored instant", async () => {
    const texts = ["2024-05-01T10:00+02:00", "2024-12-31T23:30:00.1234567-05:30", "0099-03-01T00:00:00Z"];
    for (const text of texts) {
      const canonical = canonicalInstant(text) ?? "";
      const { rows } = await sql<{ rendered: string }>`
        select to_char(${canonical}::timestamptz at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as rendered`.execute(
        db,
      );
      expect(rows[0]?.rendered).toBe(canonical);
    }
  });
});

describe("updateSnapshotDebts", () => {
  it("refuses to overwrite a debt changed since the plan read it, changing nothing", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, [row("a", 10), row("b", 20)]);
    const [a, b] = await debtsOf(db, campaign.campaignId);
    if (a === undefined || b === undefined) throw new Error("no debts");
    const change = (id: number, expectedBalanceMinor: number) => ({
      id,
      expectedBalanceMinor,
      expectedStatus: "status.default.pending",
      balanceMinor: 1,
      status: "status.default.pending",
      firstname: null,
      lastname: null,
      email: null,
      phone: null,
    });
    const scope = { companyId: campaign.companyId, campaignId: campaign.campaignId, now };
    await expect(
      db.transaction().execute((trx) => updateSnapshotDebts(trx, scope, [change(a.id, 1000), change(b.id, 1999)])),
    ).rejects.toBeInstanceOf(ConcurrentDebtChange);
    expect((await debtsOf(db, campaign.campaignId)).map((debt) => debt.balance_minor)).toEqual([1000, 2000]);
  });

  it("writes only the contact fields the snapshot changes, keeping one changed through the api after the plan read it", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, [row("a", 10, { firstname: "Ada", email: "ada@example.test" })]);
    const [a] = await debtsOf(db, campaign.campaignId);
    if (a === undefined) throw new Error("no debt");
    // The api changes the e-mail after the worker read the debt.
    await db.updateTable("debts").set({ email: "ada@api.example.test" }).where("id", "=", a.id).execute();
    const scope = { companyId: campaign.companyId, campaignId: campaign.campaignId, now };
    await db.transaction().execute((trx) =>
      updateSnapshotDebts(trx, scope, [
        {
          id: a.id,
          expectedBalanceMinor: 1000,
          expectedStatus: "status.default.pending",
          balanceMinor: 400,
          status: "status.default.pending",
          firstname: "Augusta",
          lastname: null,
          email: null,
          phone: null,
        },
      ]),
    );
    expect(await debtsOf(db, campaign.campaignId)).toMatchObject([
      { balance_minor: 400, firstname: "Augusta", email: "ada@api.example.test" },
    ]);
  });
});

/** What `applyReconciliationPlan` needs to apply a plan of snapshot `snapshotId` to `campaign`. */
const applyContext = (campaign: CampaignFixture, snapshotId: number) => ({
  companyId: campaign.companyId,
  campaignId: campaign.campaignId,
  creditorId: campaign.creditorId,
  timelineId: campaign.timelineId,
  snapshotId,
  integrationClientPk: campaign.clientPk,
  now,
});

describe("applyReconciliationPlan", () => {
  const installment = (amount: number) => ({
    external_reference: "i-1",
    amount,
    payment_date: "2030-07-01",
    status: "pending",
  });
  const planOf = (reference: string, amount: number) => ({
    payment_plan: { external_reference: reference, status: "active", installments: [installment(amount)] },
  });

  /**
   * A campaign with debts a (with an active plan) and b, and the plan of a
   * snapshot that replaces a's plan, changes both balances and creates c:
   * one statement of each kind is handed to the connection.
   */
  const stalePlan = async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, [row("a", 10, planOf("p-a1", 10)), row("b", 20)]);
    const snapshotId = await insertSnapshot(db, campaign, [
      [row("a", 8, planOf("p-a2", 8)), row("b", 15), row("c", 30)],
    ]);
    const current = await loadCampaignDebts(db, campaign.companyId, campaign.campaignId);
    const { rows, errors } = readSnapshotRows(await loadSnapshotChunks(db, campaign.companyId, snapshotId), 1);
    expect(errors).toEqual([]);
    const plan = Reconciliation.plan(current.debts, rows, { allowExpensiveDestinations: false });
    if (Reconciliation.isRejected(plan)) throw new Error("rejected");
    expect([plan.creations.length, plan.balanceChanges.length, plan.planReplacements.length]).toEqual([1, 2, 1]);
    const context = applyContext(campaign, snapshotId);
    const apply = () => db.transaction().execute((trx) => applyReconciliationPlan(trx, context, current, plan));
    return { campaign, apply };
  };

  it("reports a debt changed since the plan read it and keeps nothing", async () => {
    const { campaign, apply } = await stalePlan();
    // A payment recorded through the api after the plan read debt b.
    await sql`update debts set balance_minor = 1900 where campaign_id = ${campaign.campaignId} and internal_id = 'b'`.execute(
      db,
    );
    const changed = await fingerprint(db, campaign.companyId);
    await expect(apply()).rejects.toBeInstanceOf(ConcurrentDebtChange);
    expect(await fingerprint(db, campaign.companyId)).toEqual(changed);
  });

  it("reports a plan ended since the plan read it as a concurrent change and keeps nothing", async () => {
    const { campaign, apply } = await stalePlan();
    await sql`
      update payment_plans set status = 'cancelled', ended_at = now()
      where status = 'active' and debt_id = (select id from debts where campaign_id = ${campaign.campaignId} and internal_id = 'a')
    `.execute(db);
    const changed = await fingerprint(db, campaign.companyId);
    await expect(apply()).rejects.toBeInstanceOf(ConcurrentDebtChange);
    expect(await fingerprint(db, campaign.companyId)).toEqual(changed);
  });

  it("lets no statement waiting its turn run after the rollback when the debts' insert fails", async () => {
    const { campaign, apply } = await stalePlan();
    // Debt c created through the api after the plan read the campaign: the plan's insert of c now fails.
    await sql`
      insert into debts (company_id, creditor_id, campaign_id, timeline_id, internal_id, amount_minor, balance_minor,
        currency, amount_text)
      values (${campaign.companyId}, ${campaign.creditorId}, ${campaign.campaignId}, ${campaign.timelineId}, 'c', 100, 100,
        'EUR', '1.00')`.execute(db);
    const changed = await fingerprint(db, campaign.companyId);
    await expect(apply()).rejects.toMatchObject({ code: "23505" });
    // The plan's ending and the balance update were queued behind the insert; neither may have run on its own.
    expect(await fingerprint(db, campaign.companyId)).toEqual(changed);
  });
});

describe("applyReconciliationPlan and the debt status transitions", () => {
  it("refuses a plan that moves a debt against the transition table and writes nothing", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, [row("a", 10), row("b", 20)]);
    await sql`update debts set status = ${DebtStatus.inProgress} where company_id = ${campaign.companyId}`.execute(db);
    const snapshotId = await insertSnapshot(db, campaign, [[row("a", 5), row("b", 20)]]);
    const current = await loadCampaignDebts(db, campaign.companyId, campaign.campaignId);
    const { rows } = readSnapshotRows(await loadSnapshotChunks(db, campaign.companyId, snapshotId), 1);
    const planned = Reconciliation.plan(current.debts, rows);
    if (Reconciliation.isRejected(planned)) throw new Error("rejected");
    const [a, b] = current.debts;
    if (a === undefined || b === undefined) throw new Error("fixture");
    // in_progress -> pending is not in the table: the planner never plans it, the write must not make it.
    const illegal: Reconciliation.ReconciliationPlan = {
      ...planned,
      statusChanges: [{ debtId: b.id, from: DebtStatus.inProgress, to: DebtStatus.pending }],
    };
    const context = applyContext(campaign, snapshotId);
    const before = await fingerprint(db, campaign.companyId);
    const failure = db.transaction().execute((trx) => applyReconciliationPlan(trx, context, current, illegal));
    await expect(failure).rejects.toBeInstanceOf(DebtStatus.IllegalTransition);
    await expect(failure).rejects.toMatchObject({ debtId: b.id, from: DebtStatus.inProgress, to: DebtStatus.pending });
    expect(await fingerprint(db, campaign.companyId)).toEqual(before);
    // The same plan without the illegal move applies: the refusal came from the table, not from the rest of it.
    await db.transaction().execute((trx) => applyReconciliationPlan(trx, context, current, planned));
    expect(
      (await loadCampaignDebts(db, campaign.companyId, campaign.campaignId)).debts.map((debt) => [
        debt.id,
        debt.balanceMinor,
        debt.status,
      ]),
    ).toEqual([
      [a.id, 500, DebtStatus.inProgress],
      [b.id, 2000, DebtStatus.inProgress],
    ]);
  });
});

describe("loadCampaignDebts", () => {
  it("refuses a stored status outside the domain's list instead of planning with it", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, [row("a", 10), row("b", 20)]);
    const before = await loadCampaignDebts(db, campaign.companyId, campaign.campaignId);
    expect(before.debts.map((debt) => debt.status)).toEqual(["status.default.pending", "status.default.pending"]);
    await sql`update debts set status = 'status.default.archived' where company_id = ${campaign.companyId} and internal_id = 'b'`.execute(
      db,
    );
    await expect(loadCampaignDebts(db, campaign.companyId, campaign.campaignId)).rejects.toThrow(
      /has an unknown status "status\.default\.archived"/,
    );
  });
});
