/**
 * The webhook events of snapshot application, recorded in the applying
 * transaction: with a subscribed endpoint, exactly one event per created,
 * updated and settled debt, per payment row, per plan replaced or cancelled
 * and one `snapshot.completed`, each with one delivery and its job, payloads
 * as the api shows the resources; a rejected snapshot records only
 * `snapshot.failed`, so does the last attempt of a failing job; a re-run
 * records nothing; a company no endpoint listens for records nothing.
 */
import { debtorLinks } from "@dc/crypto";
import { debtEventData, paymentEventData, snapshotEventData, type WebhookEventType } from "@dc/db";
import { useTestDatabase } from "@dc/testing";
import type { JobHelpers } from "graphile-worker";
import { sql } from "kysely";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { createWorkerMetrics } from "../src/observability/metrics.ts";
import { applySnapshot } from "../src/snapshots/apply-snapshot.ts";
import { applySnapshotTask } from "../src/tasks/apply-snapshot.ts";
import {
  type CampaignFixture,
  debtBy,
  debtsOf,
  insertCampaign,
  insertSnapshot,
  plansOf,
  testIds, testLinks,
  snapshotKey,
} from "./snapshot-fixtures.ts";
import { countsByType, deliveriesOf, eventsOf, row, secondRows, seedRows } from "./snapshot-event-fixtures.ts";
import { deliveryJobs, insertEndpoint } from "./webhooks-fixtures.ts";

const { db } = await useTestDatabase();
const seededAt = new Date("2030-06-01T09:00:00.000Z");
const now = new Date("2030-06-15T12:00:00.000Z");
const apply = (id: number, at = now) => applySnapshot({ db, clock: fixedClock(at), ids: testIds, links: testLinks }, snapshotKey(id));

/** Stores and applies a snapshot, failing unless it completed. */
const applyRows = async (campaign: CampaignFixture, rows: ReadonlyArray<unknown>, at = now) => {
  const id = await insertSnapshot(db, campaign, [rows]);
  const outcome = await apply(id, at);
  if (outcome.outcome !== "completed") throw new Error(`not completed: ${JSON.stringify(outcome)}`);
  return { id, outcome };
};

describe("applying a snapshot for a subscribed endpoint", () => {
  it("records exactly one event per created, updated and settled debt, payment, plan replacement, and the completion", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, seedRows, seededAt);
    expect(await eventsOf(db, campaign.companyId)).toEqual([]);
    const before = await debtsOf(db, campaign.campaignId);
    const planOf = async (key: string) => (await plansOf(db, debtBy(before, key).id))[0]?.id ?? -1;
    const [planC1, planE, planG] = [await planOf("c"), await planOf("e"), await planOf("g")];
    // a and c form a group: a's payload shows the group and c's plan (read through debtViewsOf).
    const group = await db
      .insertInto("debt_groups")
      .values({ company_id: campaign.companyId })
      .returning("id")
      .executeTakeFirstOrThrow();
    await db
      .updateTable("debts")
      .set({ group_id: group.id })
      .where("id", "in", [debtBy(before, "a").id, debtBy(before, "c").id])
      .execute();
    const endpoint = await insertEndpoint(db, campaign.companyId, "https://hooks.example.com/all");

    const { id: snapshotId, outcome } = await applyRows(campaign, secondRows);
    expect(outcome.counts).toEqual({
      rows: 8,
      created: 2,
      updated: 4,
      unchanged: 2,
      settled: 2,
      plans_replaced: 3,
      plans_kept: 0,
      payments: 6,
      skipped_zero_balance: 0,
      warnings: 0,
    });
    const events = await eventsOf(db, campaign.companyId);
    const { counts } = outcome;
    expect(countsByType(events)).toEqual({
      "debt.created": counts.created,
      // a (balance), b (contact only: counted unchanged), c (balance and plan); d is settled, g's debt row is untouched.
      "debt.updated": counts.updated - 2 + 1,
      // e and f omitted, d brought to zero by its row.
      "debt.settled": counts.settled + 1,
      "payment.recorded": counts.payments,
      // c, g, new-1 by their rows, and e's plan cancelled by its settlement.
      "payment_plan.replaced": counts.plans_replaced + 1,
      "snapshot.completed": 1,
    });
    expect(outcome).toMatchObject({ webhookEvents: events.length, webhookDeliveries: events.length });

    const debts = await debtsOf(db, campaign.campaignId);
    const keyOf = new Map(debts.map((debt) => [testIds.encode("debt", debt.id), debt.internal_id]));
    const keysOf = (type: WebhookEventType, field = "id") =>
      events.filter((event) => event.type === type).map((event) => keyOf.get(String(event.body.data[field])));
    expect(keysOf("debt.created")).toEqual(["new-1", "new-2"]);
    expect(keysOf("debt.updated").sort()).toEqual(["a", "b", "c"]);
    expect(keysOf("debt.settled").sort()).toEqual(["d", "e", "f"]);
    expect(keysOf("payment_plan.replaced", "debt_id").sort()).toEqual(["c", "e", "g", "new-1"]);
    expect(keysOf("payment.recorded", "debt_id").sort()).toEqual(["a", "c", "d", "e", "f", "new-1"]);
    expect(events.at(-1)?.type).toBe("snapshot.completed");
    for (const event of events) {
      expect(event.occurred_at).toEqual(now);
      expect(event.body).toMatchObject({ type: event.type, timestamp: now.toISOString() });
    }

    // One delivery per event for the endpoint, each with its job.
    const deliveries = await deliveriesOf(db, campaign.companyId);
    expect(deliveries.map((delivery) => [delivery.endpoint_id, delivery.event_id, delivery.status])).toEqual(
      events.map((event) => [endpoint.id, event.id, "pending"]),
    );
    const jobs = (await deliveryJobs(db)).filter((job) => job.payload.company_id === campaign.companyId);
    expect(jobs.map((job) => job.key).sort()).toEqual(
      deliveries.map((delivery) => `webhook_delivery:${delivery.id}`).sort(),
    );

    const dataOf = (type: WebhookEventType, key: string, field = "id") => {
      const event = events.find(
        (candidate) => candidate.type === type && keyOf.get(String(candidate.body.data[field])) === key,
      );
      if (event === undefined) throw new Error(`no ${type} event for ${key}`);
      return event.body.data;
    };
    const debtId = (key: string) => debtBy(debts, key).id;
    const debtRead = async (key: string) =>
      (await debtEventData(db, testIds, campaign.companyId, [debtId(key)], { signer: testLinks, now })).get(debtId(key));

    // Debts: the resource as GET /debts/{id} shows it after the snapshot (debtEventData is checked against it by the api's tests).
    for (const event of events.filter((candidate) => candidate.type.startsWith("debt."))) {
      expect(event.body.data).toEqual(await debtRead(keyOf.get(String(event.body.data["id"])) ?? ""));
    }
    const created = dataOf("debt.created", "new-2");
    expect(created).toEqual(await debtRead("new-2"));
    // No company-set link: the debtor page link the api presents, on the worker's public origin.
    const target = { companyId: campaign.companyId, debtId: debtId("new-2") };
    expect(created["payment_link"]).toBe(`http://localhost:3000/pay/${debtorLinks(testLinks.secret).token(target, now)}`);
    expect(created).toMatchObject({
      id: testIds.encode("debt", debtId("new-2")),
      creditor_id: testIds.encode("creditor", campaign.creditorId),
      timeline_id: testIds.encode("timeline", campaign.timelineId),
      internal_id: "new-2",
      amount: 25,
      remaining_amount: 25,
      currency: "EUR",
      status: "status.default.pending",
      payment_plan_active: false,
      is_grouped: false,
      group_debt_ids: [testIds.encode("debt", debtId("new-2"))],
      import_date: "2030-06-15T12:00:00+00:00",
      created_at: "2030-06-15T12:00:00+00:00",
      updated_at: "2030-06-15T12:00:00+00:00",
    });
    expect(dataOf("debt.created", "new-1")).toMatchObject({
      amount: 100,
      remaining_amount: 90,
      payment_plan_active: true,
    });
    const updated = dataOf("debt.updated", "a");
    expect(updated).toEqual(await debtRead("a"));
    expect(updated).toMatchObject({
      amount: 100,
      remaining_amount: 60,
      status: "status.default.pending",
      is_grouped: true,
      group_debt_ids: [testIds.encode("debt", debtId("a")), testIds.encode("debt", debtId("c"))],
      payment_plan_active: true,
      plan_start_date: "2030-06-01",
      created_at: "2030-06-01T09:00:00+00:00",
      updated_at: "2030-06-15T12:00:00+00:00",
    });
    expect(dataOf("debt.updated", "b")).toMatchObject({ email: "b@new.test", remaining_amount: 80 });
    const settled = dataOf("debt.settled", "e");
    expect(settled).toEqual(await debtRead("e"));
    expect(settled).toMatchObject({ remaining_amount: 0, status: "status.default.paid", payment_plan_active: false });
    expect(dataOf("debt.settled", "d")).toMatchObject({ remaining_amount: 0, status: "status.default.paid" });

    // Payments: as GET /debts/{id}/payments lists them.
    const payment = dataOf("payment.recorded", "a", "debt_id");
    expect(payment).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      debt_id: testIds.encode("debt", debtId("a")),
      installment_id: null,
      external_payment_id: null,
      provider: "snapshot",
      amount: 40,
      currency: "EUR",
      status: "succeeded",
      paid_at: "2030-06-15T12:00:00+00:00",
    });
    expect(
      (await paymentEventData(db, testIds, campaign.companyId, [String(payment["id"])])).get(String(payment["id"])),
    ).toEqual(payment);
    const [planC2] = (await plansOf(db, debtId("c"))).filter((candidate) => candidate.status === "active");
    const [paidC2a, pendingC2b] = planC2?.installments ?? [];
    expect(dataOf("payment.recorded", "c", "debt_id")).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      debt_id: testIds.encode("debt", debtId("c")),
      installment_id: testIds.encode("installment", paidC2a?.id ?? -1),
      external_payment_id: "pay-c",
      provider: "snapshot",
      amount: 40,
      currency: "EUR",
      status: "succeeded",
      paid_at: "2030-06-01T08:00:00+00:00",
    });

    // Plans: the new plan with its installments and the plan it replaced; null for a cancellation.
    expect(dataOf("payment_plan.replaced", "c", "debt_id")).toEqual({
      debt_id: testIds.encode("debt", debtId("c")),
      payment_plan: {
        id: testIds.encode("payment_plan", planC2?.id ?? -1),
        debt_id: testIds.encode("debt", debtId("c")),
        external_reference: "plan-c2",
        status: "active",
        start_date: "2030-06-01",
        source: "snapshot",
        currency: "EUR",
        installments: [
          {
            id: testIds.encode("installment", paidC2a?.id ?? -1),
            external_reference: "c2a",
            amount: 40,
            payment_date: "2030-06-01",
            status: "paid",
            paid_at: "2030-06-01T08:00:00+00:00",
            external_payment_id: "pay-c",
          },
          {
            id: testIds.encode("installment", pendingC2b?.id ?? -1),
            external_reference: "c2b",
            amount: 60,
            payment_date: "2030-07-01",
            status: "pending",
            paid_at: null,
            external_payment_id: null,
          },
        ],
      },
      replaced_payment_plan_id: testIds.encode("payment_plan", planC1),
    });
    expect(dataOf("payment_plan.replaced", "e", "debt_id")).toEqual({
      debt_id: testIds.encode("debt", debtId("e")),
      payment_plan: null,
      replaced_payment_plan_id: testIds.encode("payment_plan", planE),
    });
    expect(dataOf("payment_plan.replaced", "g", "debt_id")).toEqual({
      debt_id: testIds.encode("debt", debtId("g")),
      payment_plan: null,
      replaced_payment_plan_id: testIds.encode("payment_plan", planG),
    });
    expect(dataOf("payment_plan.replaced", "new-1", "debt_id")).toMatchObject({
      payment_plan: { external_reference: "plan-n", status: "active" },
      replaced_payment_plan_id: null,
    });

    // The snapshot: its acknowledgement as the status resource returns it.
    const completed = events.at(-1)?.body.data;
    expect(completed).toEqual(await snapshotEventData(db, campaign.companyId, snapshotId));
    expect(completed).toMatchObject({
      status: "completed",
      core_applied: true,
      counts,
      warnings: [],
      warning_count: 0,
      failure: null,
    });
  });

  it("builds and records only the types the company's endpoints subscribe to", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, seedRows, seededAt);
    await insertEndpoint(db, campaign.companyId, "https://hooks.example.com/settled", {
      eventTypes: ["debt.settled", "snapshot.completed"],
    });
    await insertEndpoint(db, campaign.companyId, "https://hooks.example.com/off", { eventTypes: ["debt.created"] });
    await db
      .updateTable("webhook_endpoints")
      .set({ enabled: false, disabled_reason: "manual", disabled_at: now })
      .where("url", "=", "https://hooks.example.com/off")
      .execute();
    await applyRows(campaign, secondRows);
    const events = await eventsOf(db, campaign.companyId);
    expect(countsByType(events)).toEqual({ "debt.settled": 3, "snapshot.completed": 1 });
    expect(await deliveriesOf(db, campaign.companyId)).toHaveLength(4);
  });
});

describe("snapshots that record no debt event", () => {
  it("a rejected snapshot records only snapshot.failed, with its failure", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, seedRows, seededAt);
    await insertEndpoint(db, campaign.companyId, "https://hooks.example.com/all");
    const id = await insertSnapshot(db, campaign, [[row("a", 10), row("a", 20), row("new", 5)]]);
    expect(await apply(id)).toMatchObject({ outcome: "failed", code: "invalid_snapshot_row" });
    const events = await eventsOf(db, campaign.companyId);
    expect(events.map((event) => event.type)).toEqual(["snapshot.failed"]);
    const data = events[0]?.body.data;
    expect(data).toEqual(await snapshotEventData(db, campaign.companyId, id));
    expect(data).toMatchObject({
      status: "failed",
      core_applied: false,
      counts: null,
      failure: { code: "invalid_snapshot_row", error_count: 1, errors: [{ row_index: 1 }] },
    });
    expect(events[0]?.occurred_at).toEqual(now);

    // Re-running the failed snapshot records nothing more.
    expect(await apply(id)).toMatchObject({ outcome: "skipped", status: "failed" });
    expect(await eventsOf(db, campaign.companyId)).toHaveLength(1);
  });

  it("a re-run of an applied snapshot records nothing new", async () => {
    const campaign = await insertCampaign(db);
    await insertEndpoint(db, campaign.companyId, "https://hooks.example.com/all");
    const { id } = await applyRows(campaign, seedRows, seededAt);
    const events = await eventsOf(db, campaign.companyId);
    expect(countsByType(events)).toMatchObject({
      "debt.created": 8,
      "payment_plan.replaced": 3,
      "snapshot.completed": 1,
    });
    const deliveries = await deliveriesOf(db, campaign.companyId);
    expect(await apply(id)).toMatchObject({ outcome: "skipped", status: "completed" });
    expect(await eventsOf(db, campaign.companyId)).toEqual(events);
    expect(await deliveriesOf(db, campaign.companyId)).toEqual(deliveries);
  });

  it("a company without an endpoint for these events records no event rows", async () => {
    const campaign = await insertCampaign(db);
    await insertEndpoint(db, campaign.companyId, "https://hooks.example.com/followups", {
      eventTypes: ["followup.created"],
    });
    await applyRows(campaign, seedRows, seededAt);
    const { outcome } = await applyRows(campaign, secondRows);
    expect(outcome).toMatchObject({ webhookEvents: 0, webhookDeliveries: 0 });
    const bare = await insertCampaign(db);
    await applyRows(bare, seedRows, seededAt);
    await applyRows(bare, secondRows);
    const rejected = await insertSnapshot(db, bare, [[row("a", 10), row("a", 20)]]);
    expect(await apply(rejected)).toMatchObject({ outcome: "failed" });
    for (const companyId of [campaign.companyId, bare.companyId]) {
      expect(await eventsOf(db, companyId)).toEqual([]);
      expect(await deliveriesOf(db, companyId)).toEqual([]);
    }
  });

  it("the last attempt of a failing job records snapshot.failed with processing_error, earlier attempts nothing", async () => {
    const campaign = await insertCampaign(db);
    await applyRows(campaign, seedRows, seededAt);
    await insertEndpoint(db, campaign.companyId, "https://hooks.example.com/all");
    const logger = pino({ level: "silent" });
    const metrics = createWorkerMetrics(logger);
    const task = applySnapshotTask({ db, clock: fixedClock(now), logger, metrics, ids: testIds, links: testLinks });
    const helpers = (attempts: number): JobHelpers =>
      ({ job: { id: "7", task_identifier: "apply_snapshot", attempts, max_attempts: 10 } }) as unknown as JobHelpers;
    await sql`create function fail_debts() returns trigger language plpgsql as $$
      begin raise exception 'debts are unavailable'; end $$`.execute(db);
    await sql`create trigger fail_debts before update on debts execute function fail_debts()`.execute(db);
    try {
      const id = await insertSnapshot(db, campaign, [secondRows]);
      await expect(task({ snapshot_id: id, company_id: campaign.companyId }, helpers(9))).rejects.toThrow("debts are unavailable");
      expect(await eventsOf(db, campaign.companyId)).toEqual([]);
      await expect(task({ snapshot_id: id, company_id: campaign.companyId }, helpers(10))).resolves.toBeUndefined();
      const events = await eventsOf(db, campaign.companyId);
      expect(events.map((event) => event.type)).toEqual(["snapshot.failed"]);
      expect(events[0]?.body.data).toEqual(await snapshotEventData(db, campaign.companyId, id));
      expect(events[0]?.body.data).toMatchObject({ status: "failed", failure: { code: "processing_error" } });
    } finally {
      await sql`drop trigger fail_debts on debts`.execute(db);
      await sql`drop function fail_debts()`.execute(db);
    }
  });
});
