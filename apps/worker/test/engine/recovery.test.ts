/**
 * The recovery of sends a stopped worker left `in_progress`
 * (docs/decisions/0605): after the send timeout, a send the provider
 * received gets the provider's outcome, a send it never received is
 * scheduled again and sent once; a send younger than the timeout is left
 * alone. No followup is sent twice.
 */
import { useTestDatabase } from "@dc/testing";
import { describe, expect, it } from "vitest";
import { prepareSends } from "../../src/engine/prepare-sends.ts";
import { recoverStaleSends } from "../../src/engine/recover-sends.ts";
import { runBatch } from "../../src/engine/run-batch.ts";
import {
  createEngineTenant,
  engineDependencies,
  enrolledDebts,
  followupsOf,
  sandboxMessagesOf,
  tuesdayMorning,
} from "./engine-fixtures.ts";

const { db } = await useTestDatabase();

describe("recoverStaleSends", () => {
  it("records what the provider received, sends again what it never received, and nothing twice", async () => {
    const tenant = await createEngineTenant(db);
    const [received, lost] = await enrolledDebts(db, tenant, [{}, {}], tuesdayMorning);
    const engine = engineDependencies(db, tuesdayMorning, { sendTimeoutMs: 60_000 });
    // A worker commits both sends in_progress, hands one to the provider, and dies.
    const prepared = await db
      .transaction()
      .execute((trx) => prepareSends(trx, engine, { kind: "live", now: tuesdayMorning }, tuesdayMorning));
    expect(prepared.sends).toHaveLength(2);
    const handed = prepared.sends.find((send) => send.context.debt_id === received)!;
    await engine.adapters.adapterFor({ sandbox: false }, "email").send([handed.message]);

    engine.clock.set(new Date(tuesdayMorning.getTime() + 30_000));
    expect(await recoverStaleSends(engine)).toEqual({ claimed: 0, recorded: 0, rescheduled: 0 });

    const late = new Date(tuesdayMorning.getTime() + 61_000);
    engine.clock.set(late);
    expect(await recoverStaleSends(engine)).toEqual({ claimed: 2, recorded: 1, rescheduled: 1 });
    expect((await followupsOf(db, tenant.companyId, received!)).map((row) => row.status)).toEqual([
      "delivered",
      "scheduled",
    ]);
    expect(await followupsOf(db, tenant.companyId, lost!)).toEqual([
      expect.objectContaining({ status: "scheduled", attempt: 1, scheduled_at: late }),
    ]);

    await runBatch(engine, { kind: "live", now: late });
    expect((await followupsOf(db, tenant.companyId, lost!)).map((row) => row.status)).toEqual([
      "delivered",
      "scheduled",
    ]);
    const messages = await sandboxMessagesOf(db, tenant.companyId);
    expect(messages.map((message) => message.debt_id).sort()).toEqual([received, lost].sort());
  });
});
