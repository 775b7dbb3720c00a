/**
 * E-mail attempts through the engine on a real SMTP server: a failure
 * before the server can have the message is retried at the step's next
 * attempt and the e-mail goes out once; a failure after the body whose
 * answer never came fails the step for good, so the debtor never gets the
 * e-mail twice (docs/decisions/0617).
 */
import type { TimelineDefinition } from "@dc/domain";
import { type LostAnswer, startTestSmtpServer, useTestDatabase } from "@dc/testing";
import { afterAll, describe, expect, it } from "vitest";
import { makeChannelAdapters } from "../../src/channels/adapters.ts";
import { runBatch } from "../../src/engine/run-batch.ts";
import {
  createEngineTenant,
  engineDependencies,
  enrolledDebts,
  followupsOf,
  tuesdayMorning,
} from "../engine/engine-fixtures.ts";

const { db } = await useTestDatabase();
const smtp = await startTestSmtpServer();
afterAll(() => smtp.close());

/** An e-mail step with two attempts 4 hours apart, then an SMS step a month later. */
const timeline: TimelineDefinition.Definition = {
  scheduling: { time_zone: "Europe/Paris", weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
  steps: [
    { day_offset: 0, channel: "email", configuration: { max_attempts: 2 }, content: { subject: "Reminder" } },
    { day_offset: 30, channel: "sms", configuration: {}, content: {} },
  ],
};
const tenant = await createEngineTenant(db, { definition: timeline });
const retryAt = new Date(tuesdayMorning.getTime() + 4 * 3_600_000);

/**
 * Enrolls a debt owed by `email`, runs the engine now and at the retry's
 * time; returns its followups. Each call has its own connection pool: on a
 * connection it reuses, nodemailer itself resends a message the server
 * refused before its body, which would hide the engine's retry.
 */
const sendTo = async (email: string) => {
  const adapters = makeChannelAdapters(db, {
    // Short, so a reply that never comes is a timeout within the test.
    smtp: { url: smtp.url, from: "Collections <collect@mail.example>", socketTimeoutMs: 1_000 },
  });
  const engine = { ...engineDependencies(db, tuesdayMorning), adapters };
  try {
    const [debt] = await enrolledDebts(db, tenant, [{ email }], tuesdayMorning);
    await runBatch(engine, { kind: "live", now: tuesdayMorning });
    engine.clock.set(retryAt);
    await runBatch(engine, { kind: "live", now: retryAt });
    return (await followupsOf(db, tenant.companyId, debt!)).map((row) => [
      row.step,
      row.attempt,
      row.status,
      row.notes,
    ]);
  } finally {
    await adapters.close?.();
  }
};
const receivedBy = (email: string) => smtp.received.filter((mail) => mail.envelope.to.includes(email));

describe("e-mail attempts", () => {
  it.each<[LostAnswer, RegExp]>([
    ["close", /^smtp outcome unknown: ECONNECTION: Connection closed unexpectedly; not sent again$/],
    ["silence", /^smtp outcome unknown: ETIMEDOUT: .*; not sent again$/],
  ])("never sends again an e-mail whose answer was lost after its body (%s)", async (how, notes) => {
    const email = `lost-${how}@debtor.example`;
    smtp.loseAnswer(email, how);
    expect(await sendTo(email)).toEqual([
      [0, 1, "failed", expect.stringMatching(notes)],
      [1, 1, "scheduled", null],
    ]);
    expect(receivedBy(email)).toHaveLength(1);
  });

  it.each<[string, "rcpt" | "data", number, string]>([
    ["a 421 to RCPT TO", "rcpt", 421, "4.3.2 Shutting down"],
    ["a 451 to the body", "data", 451, "4.3.0 Try again later"],
  ])("retries after %s and sends the e-mail once", async (_, at, code, message) => {
    const email = `${at}-${code}@debtor.example`;
    smtp.refuse(email, { at, code, message, times: 1 });
    expect(await sendTo(email)).toEqual([
      [0, 1, "failed", expect.stringMatching(new RegExp(`^smtp ${code}: .*${message}`))],
      [0, 2, "sent", null],
      [1, 1, "scheduled", null],
    ]);
    expect(receivedBy(email)).toHaveLength(1);
  });

  it("fails the step for good on a 5xx to RCPT TO", async () => {
    const email = "unknown@debtor.example";
    smtp.refuse(email, { at: "rcpt", code: 550, message: "5.1.1 No such user" });
    expect(await sendTo(email)).toEqual([
      [0, 1, "failed", expect.stringMatching(/^smtp 550: .*No such user/)],
      [1, 1, "scheduled", null],
    ]);
    expect(receivedBy(email)).toEqual([]);
  });
});
