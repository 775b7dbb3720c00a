/**
 * "A debtor is never contacted after paying, nor outside the rules", at
 * the send transaction's re-check (DESIGN.md 8, docs/decisions/0602,
 * 0603, 0605, 0610, 0657, 0658, 0673): a payment committed while the
 * sweep claims, while a send is at its provider, or after a send a crash
 * left `in_progress`; a partial payment; an e-mail opt-out or bounce
 * reaching a retry already scheduled; preferences saved after the step was
 * scheduled. Payments are written by the debtor page's statements
 * (`recordProviderPayment`, then `stopEnrollments` when the debt is paid).
 */
import {
  type DbTransaction,
  recordEmailBounces,
  recordProviderPayment,
  saveDebtorPreferences,
  stopEnrollments,
  unsubscribeFromEmail,
} from "@dc/db";
import type { TimelineDefinition } from "@dc/domain";
import { useTestDatabase } from "@dc/testing";
import { describe, expect, it } from "vitest";
import type { ChannelAdapters } from "../../src/channels/channel-adapter.ts";
import { prepareSends } from "../../src/engine/prepare-sends.ts";
import { recoverStaleSends } from "../../src/engine/recover-sends.ts";
import { runBatch } from "../../src/engine/run-batch.ts";
import {
  createEngineTenant,
  engineDependencies,
  enrolledDebts,
  enrollmentOf,
  followupsOf,
  sandboxEverywhere,
  sandboxMessagesOf,
  tuesdayMorning,
} from "./engine-fixtures.ts";

const { db } = await useTestDatabase();
const live = (now: Date) => ({ kind: "live", now }) as const;
const hourMs = 3_600_000;
const messagesTo = async (companyId: number, debtId: number) =>
  (await sandboxMessagesOf(db, companyId)).filter((message) => message.debt_id === debtId);

/** An e-mail tried twice an hour apart, then an SMS the next day; weekdays 09:00-19:00 Paris. */
const retriedEmail: TimelineDefinition.Definition = {
  scheduling: { time_zone: "Europe/Paris", weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
  steps: [
    { day_offset: 0, channel: "email", configuration: { max_attempts: 2, retry_after_hours: 1 }, content: {} },
    { day_offset: 1, channel: "sms", configuration: {}, content: {} },
  ],
};

let paymentSequence = 0;
/**
 * A debtor-page payment of `amountMinor` (the debts are 120.00 EUR), in `trx`; answers whether it settled the
 * debt. `between` runs after the debt is written and before its enrollment is stopped.
 */
const pay = async (
  trx: DbTransaction,
  companyId: number,
  debtId: number,
  amountMinor: number,
  now: Date,
  between: () => Promise<void> = async () => {},
) => {
  paymentSequence += 1;
  const result = await recordProviderPayment(trx, {
    companyId,
    debtId,
    provider: "stripe",
    externalPaymentId: `pi_rules_${paymentSequence}`,
    amountMinor,
    currency: "EUR",
    paidAt: now,
  });
  if (!result.recorded) throw new Error("payment not recorded");
  await between();
  if (result.paid) await stopEnrollments(trx, { companyId, debtIds: [debtId], reason: "paid", now });
  return result.paid;
};
const payInFull = (companyId: number, debtId: number, now: Date) =>
  db.transaction().execute((trx) => pay(trx, companyId, debtId, 12000, now));

describe("a payment that settles the debt", () => {
  it("while the sweep claims: the claim leaves the followup to the payment, which cancels it", async () => {
    const tenant = await createEngineTenant(db);
    const [debt] = await enrolledDebts(db, tenant, [{}], tuesdayMorning);
    const engine = engineDependencies(db, tuesdayMorning);
    // The payment has written the debt, not yet its enrollment, and not committed: the round neither waits
    // for it nor sends on what it read before.
    const during = async () => {
      expect(await runBatch(engine, live(tuesdayMorning))).toMatchObject({ claimed: 0, recorded: 0 });
    };
    expect(
      await db.transaction().execute((trx) => pay(trx, tenant.companyId, debt!, 12000, tuesdayMorning, during)),
    ).toBe(true);
    expect(await followupsOf(db, tenant.companyId, debt!)).toEqual([expect.objectContaining({ status: "cancelled" })]);
    await runBatch(engine, live(tuesdayMorning));
    expect(await messagesTo(tenant.companyId, debt!)).toEqual([]);
    expect(await enrollmentOf(db, tenant.companyId, debt!)).toMatchObject({ state: "stopped", reason: "paid" });
  });

  it("while its send is at the provider: that send is the last contact, with no retry and no next step", async () => {
    const tenant = await createEngineTenant(db, { definition: retriedEmail });
    const [retried, delivered] = await enrolledDebts(
      db,
      tenant,
      [{ email: "soft+deferred@example.com" }, { email: "kept@example.com" }],
      tuesdayMorning,
    );
    const sandbox = sandboxEverywhere(db);
    // The provider receives the sends only once both debts are paid: the payments commit after the claim.
    const paying: ChannelAdapters = {
      adapterFor: (company, channel) => {
        const adapter = sandbox.adapterFor(company, channel);
        return {
          ...adapter,
          send: async (messages) => {
            for (const message of messages) await payInFull(tenant.companyId, message.debtId, tuesdayMorning);
            return adapter.send(messages);
          },
        };
      },
    };
    const engine = { ...engineDependencies(db, tuesdayMorning), adapters: paying };
    expect(await runBatch(engine, live(tuesdayMorning))).toMatchObject({ claimed: 2, recorded: 2 });
    expect(await followupsOf(db, tenant.companyId, retried!)).toEqual([
      expect.objectContaining({ status: "failed", attempt: 1 }),
    ]);
    expect(await followupsOf(db, tenant.companyId, delivered!)).toEqual([
      expect.objectContaining({ status: "delivered", step: 0 }),
    ]);
    for (const debt of [retried!, delivered!]) {
      expect(await enrollmentOf(db, tenant.companyId, debt)).toMatchObject({ state: "stopped", reason: "paid" });
      expect(await messagesTo(tenant.companyId, debt)).toHaveLength(1);
    }
    const nextDay = new Date(tuesdayMorning.getTime() + 24 * hourMs);
    engine.clock.set(nextDay);
    expect(await runBatch(engine, live(nextDay))).toMatchObject({ claimed: 0 });
  });

  it("after a crash left its send in_progress, never received: the recovery gives it back and it is cancelled", async () => {
    const tenant = await createEngineTenant(db);
    const [debt] = await enrolledDebts(db, tenant, [{}], tuesdayMorning);
    const engine = engineDependencies(db, tuesdayMorning, { sendTimeoutMs: 60_000 });
    // A worker commits the send in_progress and dies before its provider call.
    await db.transaction().execute((trx) => prepareSends(trx, engine, live(tuesdayMorning), tuesdayMorning));
    expect(await payInFull(tenant.companyId, debt!, tuesdayMorning)).toBe(true);
    expect(await followupsOf(db, tenant.companyId, debt!)).toEqual([
      expect.objectContaining({ status: "in_progress" }),
    ]);

    const late = new Date(tuesdayMorning.getTime() + 61_000);
    engine.clock.set(late);
    expect(await recoverStaleSends(engine)).toMatchObject({ claimed: 1, rescheduled: 1 });
    await runBatch(engine, live(late));
    expect(await followupsOf(db, tenant.companyId, debt!)).toEqual([expect.objectContaining({ status: "cancelled" })]);
    expect(await messagesTo(tenant.companyId, debt!)).toEqual([]);
  });
});

describe("a partial payment", () => {
  it("lowers the balance and the timeline goes on, its message asking for what is left", async () => {
    const tenant = await createEngineTenant(db);
    const [debt] = await enrolledDebts(db, tenant, [{}], tuesdayMorning);
    expect(await db.transaction().execute((trx) => pay(trx, tenant.companyId, debt!, 5000, tuesdayMorning))).toBe(
      false,
    );
    await runBatch(engineDependencies(db, tuesdayMorning), live(tuesdayMorning));
    const messages = await messagesTo(tenant.companyId, debt!);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.body).toMatch(/70,00\s€/);
    expect(await enrollmentOf(db, tenant.companyId, debt!)).toMatchObject({ state: "active", next_step: 2 });
  });
});

describe("an e-mail retry already scheduled", () => {
  it("is never sent to a debt unsubscribed since, nor to an address that bounced since", async () => {
    const tenant = await createEngineTenant(db, { definition: retriedEmail });
    const [unsubscribed, bounced] = await enrolledDebts(
      db,
      tenant,
      [{ email: "gone+deferred@example.com" }, { email: "full+deferred@example.com" }],
      tuesdayMorning,
    );
    const engine = engineDependencies(db, tuesdayMorning);
    await runBatch(engine, live(tuesdayMorning));
    const retry = new Date(tuesdayMorning.getTime() + hourMs);
    for (const debt of [unsubscribed!, bounced!]) {
      expect(await followupsOf(db, tenant.companyId, debt)).toEqual([
        expect.objectContaining({ status: "failed", attempt: 1 }),
        expect.objectContaining({ status: "scheduled", attempt: 2, scheduled_at: retry }),
      ]);
    }
    const [first] = await followupsOf(db, tenant.companyId, unsubscribed!);
    expect(await unsubscribeFromEmail(db, { companyId: tenant.companyId, followupId: first!.id }, tuesdayMorning)).toBe(
      true,
    );
    // The report spells the address in another case than the debt: the address is the same mailbox.
    await recordEmailBounces(
      db,
      [
        {
          companyId: tenant.companyId,
          followupId: null,
          address: "Full+Deferred@Example.com",
          kind: "bounce",
          source: "dsn",
          detail: "5.2.2 mailbox full",
        },
      ],
      tuesdayMorning,
    );

    engine.clock.set(retry);
    await runBatch(engine, live(retry));
    for (const [debt, reason] of [
      [unsubscribed!, "opted_out"],
      [bounced!, "undeliverable"],
    ] as const) {
      expect((await followupsOf(db, tenant.companyId, debt))[1]).toMatchObject({
        status: "cancelled",
        attempt: 2,
        guard_reason: reason,
      });
      expect(await messagesTo(tenant.companyId, debt)).toHaveLength(1);
    }
  });
});

describe("preferences saved on the debtor page after the step was scheduled", () => {
  it("a refused channel blocks the step and the timeline moves to the next one", async () => {
    const tenant = await createEngineTenant(db);
    const [debt] = await enrolledDebts(db, tenant, [{}], tuesdayMorning);
    await db.transaction().execute((trx) =>
      saveDebtorPreferences(trx, {
        companyId: tenant.companyId,
        debtId: debt!,
        refusedChannels: ["email"],
        quietHours: null,
        now: tuesdayMorning,
      }),
    );
    await runBatch(engineDependencies(db, tuesdayMorning), live(tuesdayMorning));
    expect(await followupsOf(db, tenant.companyId, debt!)).toEqual([
      expect.objectContaining({ type: "email", status: "cancelled", guard_reason: "opted_out" }),
      expect.objectContaining({ type: "sms", status: "scheduled" }),
    ]);
    expect(await messagesTo(tenant.companyId, debt!)).toEqual([]);
  });

  it("quiet hours are kept in the debtor's zone, not the timeline's", async () => {
    const tenant = await createEngineTenant(db);
    // Réunion (UTC+4): 10:00 in Paris, inside the timeline's window, is 13:00 for the debtor.
    const [debt] = await enrolledDebts(db, tenant, [{ country: "RE", phone: "+262692000000" }], tuesdayMorning);
    await db.transaction().execute((trx) =>
      saveDebtorPreferences(trx, {
        companyId: tenant.companyId,
        debtId: debt!,
        refusedChannels: [],
        quietHours: { start: "12:00", end: "14:00" },
        now: tuesdayMorning,
      }),
    );
    const engine = engineDependencies(db, tuesdayMorning);
    await runBatch(engine, live(tuesdayMorning));
    const afterQuiet = new Date("2030-01-08T10:00:00Z");
    expect(await followupsOf(db, tenant.companyId, debt!)).toEqual([
      expect.objectContaining({ status: "scheduled", guard_reason: "quiet_hours", scheduled_at: afterQuiet }),
    ]);
    expect(await messagesTo(tenant.companyId, debt!)).toEqual([]);
    engine.clock.set(afterQuiet);
    await runBatch(engine, live(afterQuiet));
    expect(await messagesTo(tenant.companyId, debt!)).toHaveLength(1);
  });
});
