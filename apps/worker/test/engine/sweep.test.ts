/**
 * The engine's send path against real PostgreSQL and the sandbox provider
 * (docs/decisions/0603, 0604): a round executes what is due and nothing
 * else, through one in_progress commit and one outcome transaction, with
 * the followup's fields, the debt's counters and status, credits, webhooks
 * and the next step; the guard's deferrals are recorded.
 */
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "@dc/testing";
import { runBatch } from "../../src/engine/run-batch.ts";
import { insertEndpoint } from "../webhooks-fixtures.ts";
import {
  createEngineTenant,
  debtOf,
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

describe("a round of the live sweep", () => {
  it("executes the due followup only, records its outcome, counters and next step", async () => {
    const tenant = await createEngineTenant(db);
    await insertEndpoint(db, tenant.companyId, "https://hooks.example.com/engine", {
      eventTypes: ["followup.updated", "debt.updated"],
    });
    const [due, later, manual] = await enrolledDebts(
      db,
      tenant,
      [{}, { startMode: "due_date", dueDate: "2030-02-01" }, { startMode: "manual" }],
      tuesdayMorning,
    );
    const engine = engineDependencies(db, tuesdayMorning);
    const result = await runBatch(engine, live(tuesdayMorning));
    expect(result).toEqual({ claimed: 1, recorded: 1, deferred: 0, blocked: 0 });

    const [first, second] = await followupsOf(db, tenant.companyId, due!);
    expect(first).toMatchObject({
      status: "delivered",
      type: "email",
      step: 0,
      attempt: 1,
      call_date: tuesdayMorning,
      processed_at: tuesdayMorning,
      credits_charged: 0,
      recipient: "debtor0@example.com",
      provider_message_id: expect.stringMatching(/^sandbox:.+:1$/),
    });
    // Day 3 from the anchor, not from the run.
    expect(second).toMatchObject({
      status: "scheduled",
      type: "sms",
      step: 1,
      scheduled_at: new Date("2030-01-11T09:00:00Z"),
    });
    expect(await debtOf(db, tenant.companyId, due!)).toEqual({
      status: "status.default.in_progress",
      nb_reminders: 1,
      nb_answered: 0,
      followups_count: 2,
    });
    const messages = await sandboxMessagesOf(db, tenant.companyId);
    expect(messages).toEqual([
      expect.objectContaining({
        followup_id: first!.id,
        channel: "email",
        recipient: "debtor0@example.com",
        subject: "Reminder INV-0",
        outcome: "delivered",
      }),
    ]);
    expect((await followupsOf(db, tenant.companyId, later!)).map((row) => row.status)).toEqual(["scheduled"]);
    expect(await followupsOf(db, tenant.companyId, manual!)).toEqual([]);

    const events = await db
      .selectFrom("webhook_events")
      .select("type")
      .where("company_id", "=", tenant.companyId)
      .orderBy("id")
      .execute();
    expect(events.map((event) => event.type)).toEqual(["followup.updated", "debt.updated"]);

    // Nothing else is due: the next round claims nothing and sends nothing.
    expect(await runBatch(engine, live(tuesdayMorning))).toEqual({ claimed: 0, recorded: 0, deferred: 0, blocked: 0 });
    expect(await sandboxMessagesOf(db, tenant.companyId)).toHaveLength(1);
  });

  it("defers outside the window with a recorded decision, then sends at the window", async () => {
    const tenant = await createEngineTenant(db);
    const night = new Date("2030-01-08T21:30:00Z");
    const [debt] = await enrolledDebts(db, tenant, [{}], night);
    const engine = engineDependencies(db, night);
    expect(await runBatch(engine, live(night))).toEqual({ claimed: 1, recorded: 0, deferred: 1, blocked: 0 });
    const opening = new Date("2030-01-09T08:00:00Z");
    expect(await followupsOf(db, tenant.companyId, debt!)).toEqual([
      expect.objectContaining({ status: "scheduled", scheduled_at: opening, guard_reason: "quiet_hours" }),
    ]);
    expect(await decisionsOf(db, tenant.companyId)).toEqual([
      expect.objectContaining({ decision: "defer", reason: "quiet_hours", deferred_until: opening, decided_at: night }),
    ]);
    expect(await sandboxMessagesOf(db, tenant.companyId)).toEqual([]);

    engine.clock.set(opening);
    expect(await runBatch(engine, live(opening))).toMatchObject({ claimed: 1, recorded: 1 });
    expect(await sandboxMessagesOf(db, tenant.companyId)).toHaveLength(1);
  });

  it("blocks a step the debtor cannot receive and schedules the next one", async () => {
    const tenant = await createEngineTenant(db);
    const [debt] = await enrolledDebts(db, tenant, [{ email: null }], tuesdayMorning);
    const engine = engineDependencies(db, tuesdayMorning);
    expect(await runBatch(engine, live(tuesdayMorning))).toEqual({ claimed: 1, recorded: 0, deferred: 0, blocked: 1 });
    const followups = await followupsOf(db, tenant.companyId, debt!);
    expect(followups.map((row) => [row.status, row.step, row.guard_reason])).toEqual([
      ["cancelled", 0, "no_recipient"],
      ["scheduled", 1, null],
    ]);
    expect(await debtOf(db, tenant.companyId, debt!)).toMatchObject({
      status: "status.default.pending",
      nb_reminders: 0,
    });
    expect((await decisionsOf(db, tenant.companyId)).map((row) => [row.decision, row.reason])).toEqual([
      ["block", "no_recipient"],
    ]);
  });

  it("charges a paid channel once, retries a retryable failure, then moves on", async () => {
    const tenant = await createEngineTenant(db, { credits: 10 });
    const [delivered, flaky] = await enrolledDebts(
      db,
      tenant,
      [{ phone: "+33612340006" }, { phone: "+33612340009" }],
      tuesdayMorning,
    );
    const engine = engineDependencies(db, tuesdayMorning);
    await runBatch(engine, live(tuesdayMorning));
    const smsDay = new Date("2030-01-11T09:00:00Z");
    engine.clock.set(smsDay);
    // The live sweep takes every company's due followups: the earlier tests' are due too.
    await runBatch(engine, live(smsDay));

    const sent = await followupsOf(db, tenant.companyId, delivered!);
    expect(sent[1]).toMatchObject({ status: "sent", type: "sms", credits_charged: 1, processed_at: smsDay });
    const credits = await db
      .selectFrom("companies")
      .select("current_credits")
      .where("id", "=", tenant.companyId)
      .executeTakeFirstOrThrow();
    expect(credits.current_credits).toBe(9);
    const ledger = await db
      .selectFrom("credit_transactions")
      .select(["followup_id", "delta", "reason"])
      .where("company_id", "=", tenant.companyId)
      .execute();
    expect(ledger).toEqual([{ followup_id: sent[1]!.id, delta: -1, reason: "followup_executed" }]);

    const retryAt = new Date(smsDay.getTime() + 2 * 3_600_000);
    let attempts = await followupsOf(db, tenant.companyId, flaky!);
    expect(attempts.slice(1).map((row) => [row.status, row.step, row.attempt, row.is_retry, row.scheduled_at])).toEqual(
      [
        ["failed", 1, 1, false, smsDay],
        ["scheduled", 1, 2, true, retryAt],
      ],
    );
    expect(attempts[1]?.notes).toBe("sandbox: the carrier is temporarily unavailable");
    expect(await debtOf(db, tenant.companyId, flaky!)).toMatchObject({ nb_reminders: 1 });

    engine.clock.set(retryAt);
    await runBatch(engine, live(retryAt));
    attempts = await followupsOf(db, tenant.companyId, flaky!);
    expect(attempts.slice(2).map((row) => [row.status, row.step, row.attempt])).toEqual([
      ["failed", 1, 2],
      ["scheduled", 2, 1],
    ]);
    expect(await enrollmentOf(db, tenant.companyId, flaky!)).toMatchObject({ state: "active", next_step: 3 });
  });

  it("counts an answered call, and pauses the debt until the promise it made", async () => {
    const tenant = await createEngineTenant(db);
    const [promising] = await enrolledDebts(db, tenant, [{ phone: "+33612340001" }], tuesdayMorning);
    const engine = engineDependencies(db, tuesdayMorning);
    for (const at of ["2030-01-08T09:00:00Z", "2030-01-11T09:00:00Z", "2030-01-15T09:00:00Z"]) {
      engine.clock.set(new Date(at));
      await runBatch(engine, live(new Date(at)));
    }
    const callDay = new Date("2030-01-15T09:00:00Z");
    const followups = await followupsOf(db, tenant.companyId, promising!);
    expect(followups.map((row) => [row.type, row.status])).toEqual([
      ["email", "delivered"],
      ["sms", "delivered"],
      ["call", "deal_found"],
      ["email", "on_hold"],
    ]);
    expect(followups[2]).toMatchObject({ credits_charged: 2 });
    expect(await debtOf(db, tenant.companyId, promising!)).toMatchObject({ nb_reminders: 3, nb_answered: 1 });
    const promise = new Date(callDay.getTime() + 7 * 86_400_000);
    expect(await enrollmentOf(db, tenant.companyId, promising!)).toMatchObject({
      state: "paused",
      reason: "promise_to_pay",
      paused_until: promise,
    });
  });
});
