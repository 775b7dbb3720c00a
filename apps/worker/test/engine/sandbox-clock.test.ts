/**
 * A sandbox company's clock (docs/decisions/0600, 0606): advancing it day
 * by day runs each step at its due instant, on the company's own clock,
 * with the sandbox provider; the live sweep never touches it; a debt paid on
 * the way is never contacted again.
 */
import { stopEnrollments } from "@dc/db";
import { useTestDatabase } from "@dc/testing";
import { describe, expect, it } from "vitest";
import { sweepLive } from "../../src/engine/live-sweep.ts";
import { advanceSandbox } from "../../src/engine/sandbox-clock.ts";
import {
  createEngineTenant,
  debtOf,
  engineDependencies,
  enrolledDebts,
  followupsOf,
  sandboxMessagesOf,
} from "./engine-fixtures.ts";

const { db } = await useTestDatabase();
const dayMs = 86_400_000;

describe("advance_sandbox_clock", () => {
  it("runs a 15-day timeline day by day at the due instants; a debt paid at day 5 gets nothing more", async () => {
    const start = new Date("2030-01-07T08:00:00Z"); // Monday 09:00 in Paris.
    const tenant = await createEngineTenant(db, { sandboxNow: start });
    const [kept, paid] = await enrolledDebts(db, tenant, [{ phone: "+33612340004" }, {}], start);
    const engine = engineDependencies(db, new Date("2040-01-01T00:00:00Z"));

    // The live sweep, on a wall clock years later, leaves the sandbox company alone.
    await sweepLive(engine);
    expect(await sandboxMessagesOf(db, tenant.companyId)).toEqual([]);

    for (let day = 0; day <= 15; day++) {
      if (day === 5) {
        await db.transaction().execute(async (trx) => {
          await trx
            .updateTable("debts")
            .set({ balance_minor: 0, status: "status.default.paid" })
            .where("company_id", "=", tenant.companyId)
            .where("id", "=", paid!)
            .execute();
          await stopEnrollments(trx, {
            companyId: tenant.companyId,
            debtIds: [paid!],
            reason: "paid",
            now: engine.clock.now(),
          });
        });
      }
      const to = new Date(start.getTime() + day * dayMs + 3_600_000);
      expect((await advanceSandbox(engine, tenant.companyId, to)).now).toEqual(to);
    }

    const messages = await sandboxMessagesOf(db, tenant.companyId);
    const sent = (debtId: number) =>
      messages
        .filter((message) => message.debt_id === debtId)
        .map((message) => [message.channel, message.sent_at.toISOString(), message.outcome]);
    expect(sent(kept!)).toEqual([
      ["email", "2030-01-07T08:00:00.000Z", "delivered"],
      ["sms", "2030-01-10T08:00:00.000Z", "delivered"],
      ["ai_call", "2030-01-14T08:00:00.000Z", "deal_not_found"],
      ["email", "2030-01-21T08:00:00.000Z", "delivered"],
    ]);
    expect(sent(paid!)).toEqual([
      ["email", "2030-01-07T08:00:00.000Z", "delivered"],
      ["sms", "2030-01-10T08:00:00.000Z", "delivered"],
    ]);
    expect(await debtOf(db, tenant.companyId, kept!)).toMatchObject({
      nb_reminders: 4,
      nb_answered: 1,
      status: "status.default.in_progress",
    });
    expect((await followupsOf(db, tenant.companyId, paid!)).map((row) => row.status)).toEqual([
      "delivered",
      "delivered",
      "cancelled",
    ]);
    const enrollment = await db
      .selectFrom("enrollments")
      .select("state")
      .where("debt_id", "=", kept!)
      .executeTakeFirstOrThrow();
    expect(enrollment.state).toBe("completed");
    const clock = await db
      .selectFrom("companies")
      .select("sandbox_now")
      .where("id", "=", tenant.companyId)
      .executeTakeFirstOrThrow();
    expect(clock.sandbox_now).toEqual(new Date(start.getTime() + 15 * dayMs + 3_600_000));
  });

  it("moves deferred steps into the window when the advance passes the night", async () => {
    const evening = new Date("2030-01-07T20:30:00Z"); // Monday 21:30 in Paris: quiet hours.
    const tenant = await createEngineTenant(db, { sandboxNow: evening });
    const [debt] = await enrolledDebts(db, tenant, [{}], evening);
    const engine = engineDependencies(db, new Date("2040-01-01T00:00:00Z"));
    await advanceSandbox(engine, tenant.companyId, new Date("2030-01-08T12:00:00Z"));
    expect((await sandboxMessagesOf(db, tenant.companyId)).map((message) => message.sent_at)).toEqual([
      new Date("2030-01-08T08:00:00Z"),
    ]);
    expect((await followupsOf(db, tenant.companyId, debt!))[0]).toMatchObject({
      status: "delivered",
      guard_reason: "quiet_hours",
    });
  });

  it("does nothing for a live company", async () => {
    const tenant = await createEngineTenant(db);
    const engine = engineDependencies(db, new Date("2030-01-07T08:00:00Z"));
    expect(await advanceSandbox(engine, tenant.companyId, new Date("2030-02-01T00:00:00Z"))).toEqual({
      now: undefined,
      steps: 0,
      claimed: 0,
    });
  });
});
