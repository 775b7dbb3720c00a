/**
 * What keeps the engine from contacting a debtor (docs/decisions/0600,
 * 0603): a debt paid by a snapshot, deleted or cancelled is never sent to;
 * a paused enrollment sends nothing until resumed (or until its pause
 * ends); a request under review and an active payment plan hold the step,
 * each hold recorded once while it lasts.
 */
import { applySnapshot } from "../../src/snapshots/apply-snapshot.ts";
import { pauseEnrollments, resumeEnrollments } from "@dc/db";
import { useTestDatabase } from "@dc/testing";
import { fixedClock } from "@dc/runtime";
import { describe, expect, it } from "vitest";
import { sweepLive } from "../../src/engine/live-sweep.ts";
import { runBatch } from "../../src/engine/run-batch.ts";
import { insertCampaign, insertSnapshot, snapshotKey, testIds, testLinks } from "../snapshot-fixtures.ts";
import {
  createEngineTenant,
  decisionsOf,
  engineDependencies,
  enrolledDebts,
  enrollmentOf,
  followupsOf,
  sandboxMessagesOf,
  tuesdayMorning,
} from "./engine-fixtures.ts";

const { db } = await useTestDatabase();
const live = (now: Date) => ({ kind: "live", now }) as const;
const messagesTo = async (companyId: number, debtId: number) =>
  (await sandboxMessagesOf(db, companyId)).filter((message) => message.debt_id === debtId);

describe("a stopped debt", () => {
  it("paid by a snapshot: its enrollment stops in the snapshot's transaction and it is never sent to", async () => {
    const campaign = await insertCampaign(db);
    const rows = (a: number) => [
      { internal_id: "a", remaining_amount: a, currency: "EUR", email: "a@example.com", lastname: "A" },
      { internal_id: "b", remaining_amount: 50, currency: "EUR", email: "b@example.com", lastname: "B" },
    ];
    const apply = async (id: number) =>
      applySnapshot({ db, clock: fixedClock(tuesdayMorning), ids: testIds, links: testLinks }, snapshotKey(id));
    expect(await apply(await insertSnapshot(db, campaign, [rows(50)]))).toMatchObject({ outcome: "completed" });
    const debts = await db
      .selectFrom("debts")
      .select(["id", "internal_id"])
      .where("company_id", "=", campaign.companyId)
      .execute();
    const idOf = (internalId: string) => debts.find((debt) => debt.internal_id === internalId)!.id;
    expect((await followupsOf(db, campaign.companyId, idOf("a"))).map((row) => row.status)).toEqual(["scheduled"]);

    expect(await apply(await insertSnapshot(db, campaign, [rows(0)]))).toMatchObject({ outcome: "completed" });
    expect(await enrollmentOf(db, campaign.companyId, idOf("a"))).toMatchObject({ state: "stopped", reason: "paid" });
    expect((await followupsOf(db, campaign.companyId, idOf("a"))).map((row) => row.status)).toEqual(["cancelled"]);

    await runBatch(engineDependencies(db, tuesdayMorning), live(tuesdayMorning));
    expect(await messagesTo(campaign.companyId, idOf("a"))).toEqual([]);
    expect(await messagesTo(campaign.companyId, idOf("b"))).toHaveLength(1);
  });

  it("deleted: its enrollment and followups go with it", async () => {
    const tenant = await createEngineTenant(db);
    const [debt] = await enrolledDebts(db, tenant, [{}], tuesdayMorning);
    await db.deleteFrom("debts").where("company_id", "=", tenant.companyId).where("id", "=", debt!).execute();
    await runBatch(engineDependencies(db, tuesdayMorning), live(tuesdayMorning));
    expect(await sandboxMessagesOf(db, tenant.companyId)).toEqual([]);
    expect(
      await db.selectFrom("enrollments").select("id").where("company_id", "=", tenant.companyId).execute(),
    ).toEqual([]);
  });

  it("cancelled after its followup was scheduled: the send re-check cancels it and stops the enrollment", async () => {
    const tenant = await createEngineTenant(db);
    const [debt] = await enrolledDebts(db, tenant, [{}], tuesdayMorning);
    await db
      .updateTable("debts")
      .set({ status: "status.default.cancelled" })
      .where("company_id", "=", tenant.companyId)
      .where("id", "=", debt!)
      .execute();
    await runBatch(engineDependencies(db, tuesdayMorning), live(tuesdayMorning));
    expect(await sandboxMessagesOf(db, tenant.companyId)).toEqual([]);
    expect((await followupsOf(db, tenant.companyId, debt!)).map((row) => row.status)).toEqual(["cancelled"]);
    expect(await enrollmentOf(db, tenant.companyId, debt!)).toMatchObject({ state: "stopped", reason: "cancelled" });
  });
});

describe("a paused or held debt", () => {
  it("sends nothing while paused, and its step once resumed", async () => {
    const tenant = await createEngineTenant(db);
    const [debt] = await enrolledDebts(db, tenant, [{}], tuesdayMorning);
    const engine = engineDependencies(db, tuesdayMorning);
    await db.transaction().execute((trx) =>
      pauseEnrollments(trx, {
        companyId: tenant.companyId,
        debtIds: [debt!],
        until: null,
        reason: "paused",
        now: tuesdayMorning,
      }),
    );
    await runBatch(engine, live(tuesdayMorning));
    expect(await messagesTo(tenant.companyId, debt!)).toEqual([]);
    await db
      .transaction()
      .execute((trx) => resumeEnrollments(trx, { companyId: tenant.companyId, debtIds: [debt!], now: tuesdayMorning }));
    await runBatch(engine, live(tuesdayMorning));
    expect(await messagesTo(tenant.companyId, debt!)).toHaveLength(1);
  });

  it("puts a followup on hold when its enrollment was paused after it was scheduled", async () => {
    const tenant = await createEngineTenant(db);
    const [debt] = await enrolledDebts(db, tenant, [{}], tuesdayMorning);
    await db
      .updateTable("enrollments")
      .set({ state: "paused", reason: "paused" })
      .where("company_id", "=", tenant.companyId)
      .execute();
    await runBatch(engineDependencies(db, tuesdayMorning), live(tuesdayMorning));
    expect((await followupsOf(db, tenant.companyId, debt!)).map((row) => row.status)).toEqual(["on_hold"]);
    expect(await messagesTo(tenant.companyId, debt!)).toEqual([]);
  });

  it("resumes a timed pause when the clock reaches its end, in the sweep", async () => {
    const tenant = await createEngineTenant(db);
    const [debt] = await enrolledDebts(db, tenant, [{}], tuesdayMorning);
    const until = new Date("2030-01-09T09:00:00Z");
    await db.transaction().execute((trx) =>
      pauseEnrollments(trx, {
        companyId: tenant.companyId,
        debtIds: [debt!],
        until,
        reason: "paused",
        now: tuesdayMorning,
      }),
    );
    const engine = engineDependencies(db, tuesdayMorning);
    await sweepLive(engine);
    expect(await messagesTo(tenant.companyId, debt!)).toEqual([]);
    engine.clock.set(until);
    expect(await sweepLive(engine)).toMatchObject({ resumed: 1 });
    expect(await enrollmentOf(db, tenant.companyId, debt!)).toMatchObject({ state: "active", paused_until: null });
    expect(await messagesTo(tenant.companyId, debt!)).toHaveLength(1);
  });

  it("holds while a dispute is under review, recording the hold once, and sends once it is rejected", async () => {
    const tenant = await createEngineTenant(db);
    const [debt] = await enrolledDebts(db, tenant, [{}], tuesdayMorning);
    const request = await db
      .insertInto("debtor_requests")
      .values({
        company_id: tenant.companyId,
        debt_id: debt!,
        type: "portal_dispute",
        message: "Not mine",
        blocking: true,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const engine = engineDependencies(db, tuesdayMorning, { recheckMs: 3_600_000 });
    await runBatch(engine, live(tuesdayMorning));
    const recheck = new Date(tuesdayMorning.getTime() + 3_600_000);
    expect(await followupsOf(db, tenant.companyId, debt!)).toEqual([
      expect.objectContaining({ status: "scheduled", guard_reason: "hold", scheduled_at: recheck }),
    ]);
    engine.clock.set(recheck);
    await runBatch(engine, live(recheck));
    expect(await decisionsOf(db, tenant.companyId)).toEqual([
      expect.objectContaining({ decision: "defer", reason: "hold", deferred_until: recheck }),
    ]);
    expect(await messagesTo(tenant.companyId, debt!)).toEqual([]);

    await db.updateTable("debtor_requests").set({ review_status: "rejected" }).where("id", "=", request.id).execute();
    const later = new Date(recheck.getTime() + 3_600_000);
    engine.clock.set(later);
    await runBatch(engine, live(later));
    expect(await messagesTo(tenant.companyId, debt!)).toHaveLength(1);
  });

  it("holds while a payment plan is kept, and not once an installment is missed", async () => {
    const tenant = await createEngineTenant(db);
    const [kept, missed] = await enrolledDebts(db, tenant, [{}, {}], tuesdayMorning);
    for (const [debtId, paymentDate] of [
      [kept!, "2030-01-20"],
      [missed!, "2030-01-02"],
    ] as const) {
      const plan = await db
        .insertInto("payment_plans")
        .values({
          company_id: tenant.companyId,
          debt_id: debtId,
          status: "active",
          source: "api",
          start_date: paymentDate,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      await db
        .insertInto("installments")
        .values({
          company_id: tenant.companyId,
          payment_plan_id: plan.id,
          position: 0,
          amount_minor: 12000,
          payment_date: paymentDate,
          status: "pending",
        })
        .execute();
    }
    await runBatch(engineDependencies(db, tuesdayMorning), live(tuesdayMorning));
    // Held until the installment is 3 days late (2030-01-24 00:00 UTC), then the next window.
    expect(await followupsOf(db, tenant.companyId, kept!)).toEqual([
      expect.objectContaining({
        status: "scheduled",
        guard_reason: "hold",
        scheduled_at: new Date("2030-01-24T08:00:00Z"),
      }),
    ]);
    expect(await messagesTo(tenant.companyId, kept!)).toEqual([]);
    expect(await messagesTo(tenant.companyId, missed!)).toHaveLength(1);
  });
});
