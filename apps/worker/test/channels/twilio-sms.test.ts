import { storeProviderEvents } from "@dc/db";
import type { TimelineDefinition } from "@dc/domain";
import { Twilio } from "@dc/providers";
import { startFakeTwilio, useTestDatabase } from "@dc/testing";
import { afterAll, describe, expect, it } from "vitest";
import { prepareSends } from "../../src/engine/prepare-sends.ts";
import { recoverStaleSends } from "../../src/engine/recover-sends.ts";
import { runBatch } from "../../src/engine/run-batch.ts";
import { applyProviderEvents } from "../../src/provider-events/apply-provider-events.ts";
import { testIds } from "../snapshot-fixtures.ts";
import {
  createEngineTenant,
  engineDependencies,
  enrolledDebts,
  followupsOf,
  tuesdayMorning,
} from "../engine/engine-fixtures.ts";
import { CALLBACK_ORIGIN, TWILIO_SMS_FROM, twilioChannelAdapters } from "./channel-fixtures.ts";

const { db } = await useTestDatabase();
const account = { accountSid: "AC00000000000000000000000000000002", authToken: "twilio-worker-test-token" };
/** Twilio's clock, read for each message it makes: the engine's clock, so a message made during a send is made after it began. */
let twilioNow = tuesdayMorning;
const twilio = await startFakeTwilio(account, { now: () => twilioNow });
afterAll(() => twilio.close());

const waits: number[] = [];
const adapters = twilioChannelAdapters(db, twilio, account, (ms) => {
  waits.push(ms);
  return Promise.resolve();
});
const smsFirst: TimelineDefinition.Definition = {
  scheduling: { time_zone: "Europe/Paris", weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
  steps: [
    { day_offset: 0, channel: "sms", configuration: { max_attempts: 1 }, content: {} },
    { day_offset: 30, channel: "whatsapp", configuration: {}, content: {} },
  ],
};
const tenant = await createEngineTenant(db, { definition: smsFirst });
/** The SMS step has two attempts: a step that fails retryable gets a second followup, so a resend would show. */
const twoAttempts = await createEngineTenant(db, {
  definition: {
    ...smsFirst,
    steps: [{ ...smsFirst.steps[0]!, configuration: { max_attempts: 2 } }, smsFirst.steps[1]!],
  },
});
const engine = { ...engineDependencies(db, tuesdayMorning), adapters };
const live = { kind: "live", now: tuesdayMorning } as const;

/** The followups of the SMS step of a debt of `on`: its attempts, in order. */
const smsAttemptsOf = async (debt: number, on = tenant) =>
  (await followupsOf(db, on.companyId, debt)).filter((row) => row.step === 0);
/** Sends the first step of a new debt of `on`; answers its attempts (the retry, if any, second). */
const sendAll = async (phone: string, on = tenant) => {
  const [debt] = await enrolledDebts(db, on, [{ phone }], tuesdayMorning);
  await runBatch(engine, live);
  return smsAttemptsOf(debt!, on);
};
const sendOne = async (phone: string) => (await sendAll(phone))[0]!;
/** The messages Twilio created to `phone`: what the debtor's phone received. */
const textsTo = (phone: string) => twilio.messages.filter((message) => message.form["To"] === phone);

/** Stores Twilio status callbacks as the api does, then runs the worker's task body. */
const callback = async (params: Record<string, string>, on = tenant) => {
  const key = `status:${params["MessageSid"]}:${params["MessageStatus"]}`;
  const { stored } = await storeProviderEvents(db, on.companyId, "twilio", [
    { eventKey: key, payload: { kind: "status", params } },
  ]);
  await applyProviderEvents(engine, on.companyId);
  return stored;
};

describe("SMS through Twilio", () => {
  it("sends the documented create-message request and records the message SID", async () => {
    const followup = await sendOne("+33611111111");
    const message = twilio.messages.at(-1)!;
    expect(message.authorization).toBe(
      `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString("base64")}`,
    );
    expect(message.form).toEqual({
      To: "+33611111111",
      From: TWILIO_SMS_FROM,
      Body: expect.stringContaining("120"),
      StatusCallback: `${CALLBACK_ORIGIN}/provider-callbacks/twilio/${testIds.encode("company", tenant.companyId)}/status`,
    });
    expect(followup).toMatchObject({ status: "sent", provider_message_id: message.sid, recipient: "+33611111111" });
  });

  it("moves a sent followup to delivered, never back, and applies a duplicate once", async () => {
    const followup = await sendOne("+33622222222");
    const sid = followup.provider_message_id!;
    expect(await callback({ MessageSid: sid, MessageStatus: "sending" })).toBe(1);
    expect((await followupsOf(db, tenant.companyId, await debtOfFollowup(followup.id)))[0]).toMatchObject({
      status: "sent",
    });
    expect(await callback({ MessageSid: sid, MessageStatus: "delivered" })).toBe(1);
    expect(await callback({ MessageSid: sid, MessageStatus: "delivered" })).toBe(0);
    expect(await callback({ MessageSid: sid, MessageStatus: "sent" })).toBe(1);
    expect(await statusOf(followup.id)).toEqual({ status: "delivered", notes: null });
    expect(await processedCount(sid)).toEqual({ total: 3, processed: 3 });
  });

  it("fails a followup on an undelivered report, with Twilio's error code kept", async () => {
    const followup = await sendOne("+33633333333");
    await callback({ MessageSid: followup.provider_message_id!, MessageStatus: "undelivered", ErrorCode: "30003" });
    expect(await statusOf(followup.id)).toEqual({ status: "failed", notes: "twilio error 30003" });
  });

  it("retries a refusal (503, 429) with backoff and Retry-After, then fails the step retryable", async () => {
    waits.length = 0;
    const before = twilio.server.requests.length;
    const unavailable = { code: 20503, message: "Service unavailable", status: 503 };
    twilio.failNext(
      { status: 503, headers: { "retry-after": "3" }, body: unavailable },
      { status: 429, body: { code: 20429, message: "Too Many Requests", status: 429 } },
      { status: 503, body: unavailable },
      { status: 503, body: unavailable },
    );
    const followups = await sendAll("+33644444444", twoAttempts);
    expect(twilio.server.requests.length - before).toBe(4);
    expect(waits).toEqual([3000, 1000, 2000]);
    expect(textsTo("+33644444444")).toEqual([]);
    expect(followups.map((row) => [row.attempt, row.status, row.notes])).toEqual([
      [1, "failed", "twilio unavailable: HTTP 503 after 4 attempts"],
      [2, "scheduled", null],
    ]);
  });

  it("finds a create whose answer was lost in Twilio's message list: sent with its SID, never repeated", async () => {
    waits.length = 0;
    const listsBefore = twilio.lists.length;
    twilio.loseNextAnswers(1);
    const followups = await sendAll("+33645454545", twoAttempts);
    const texts = textsTo("+33645454545");
    expect(texts).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(twilio.lists.slice(listsBefore).map((query) => Object.fromEntries(query))).toEqual([
      { To: "+33645454545", From: TWILIO_SMS_FROM, "DateSent>": "2030-01-08", PageSize: "1000" },
    ]);
    expect(followups.map((row) => [row.attempt, row.status, row.provider_message_id, row.notes])).toEqual([
      [1, "sent", texts[0]!.sid, null],
    ]);
    // Twilio's status callbacks then apply to it as to any sent message.
    await callback({ MessageSid: texts[0]!.sid, MessageStatus: "delivered" }, twoAttempts);
    expect(await statusOf(followups[0]!.id, twoAttempts)).toEqual({ status: "delivered", notes: null });
  });

  it("fails for good, never resends, a create Twilio answered 500 and its list does not hold", async () => {
    const before = twilio.server.requests.length;
    twilio.failNext({ status: 500, body: { code: 20500, message: "Internal Server Error", status: 500 } });
    const followups = await sendAll("+33646464646", twoAttempts);
    // The create, then one page of the list.
    expect(twilio.server.requests.length - before).toBe(2);
    expect(textsTo("+33646464646")).toEqual([]);
    expect(followups.map((row) => [row.attempt, row.status, row.notes])).toEqual([
      [1, "failed", "twilio outcome unknown: HTTP 500; no such message in Twilio's list; not sent again"],
    ]);
  });

  it("fails for good a lost create when Twilio's message list fails too, with one message at most", async () => {
    twilio.loseNextAnswers(1);
    twilio.failLists(4, 500);
    const followups = await sendAll("+33646565656", twoAttempts);
    expect(textsTo("+33646565656")).toHaveLength(1);
    expect(followups).toEqual([
      expect.objectContaining({
        attempt: 1,
        status: "failed",
        provider_message_id: null,
        notes: expect.stringMatching(
          /^twilio outcome unknown: network error: .*; the message list failed \(HTTP 500 after 4 attempts\); not sent again$/,
        ),
      }),
    ]);
  });

  it("matches only a message made since the send began, and only one", async () => {
    const [debt] = await enrolledDebts(db, twoAttempts, [{ phone: "+33646767676" }], tuesdayMorning);
    const prepared = await db.transaction().execute((trx) => prepareSends(trx, engine, live, tuesdayMorning));
    const { message } = prepared.sends.find((send) => send.context.debt_id === debt)!;
    const sms = adapters.adapterFor({ sandbox: false }, "sms");
    const serverError = { status: 500, body: { code: 20500, message: "Internal Server Error", status: 500 } };
    // The same text to the same number, made by Twilio a minute before this send began: not this send's.
    twilioNow = new Date(tuesdayMorning.getTime() - 60_000);
    expect(await sms.send([message])).toEqual([{ status: "sent", providerMessageId: expect.any(String) }]);
    twilioNow = tuesdayMorning;
    twilio.failNext(serverError);
    expect(await sms.send([message])).toEqual([
      {
        status: "failed",
        retryable: false,
        error: "twilio outcome unknown: HTTP 500; no such message in Twilio's list; not sent again",
      },
    ]);
    // Two such messages made since it began: which one is this send's cannot be told.
    expect(await sms.send([message])).toEqual([{ status: "sent", providerMessageId: expect.any(String) }]);
    expect(await sms.send([message])).toEqual([{ status: "sent", providerMessageId: expect.any(String) }]);
    twilio.failNext(serverError);
    expect(await sms.send([message])).toEqual([
      {
        status: "failed",
        retryable: false,
        error: "twilio outcome unknown: HTTP 500; 2 messages in Twilio's list match it; not sent again",
      },
    ]);
    expect(textsTo("+33646767676")).toHaveLength(3);
  });

  it("never takes a message another send of the company holds for a lost create", async () => {
    const [debt] = await enrolledDebts(db, twoAttempts, [{ phone: "+33647878787" }], tuesdayMorning);
    const prepared = await db.transaction().execute((trx) => prepareSends(trx, engine, live, tuesdayMorning));
    const { message } = prepared.sends.find((send) => send.context.debt_id === debt)!;
    const sms = adapters.adapterFor({ sandbox: false }, "sms");
    // Another send of the same text to the same number, answered and acknowledged: its message is its own.
    const [answered] = await sms.send([{ ...message, idempotencyKey: `${message.idempotencyKey}-other` }]);
    expect(answered).toEqual({ status: "sent", providerMessageId: expect.any(String) });
    // This send's create made nothing and was answered 500: the listed message is the other send's.
    twilio.failNext({ status: 500, body: { code: 20500, message: "Internal Server Error", status: 500 } });
    expect(await sms.send([message])).toEqual([
      {
        status: "failed",
        retryable: false,
        error: "twilio outcome unknown: HTTP 500; no such message in Twilio's list; not sent again",
      },
    ]);
    expect(textsTo("+33647878787")).toHaveLength(1);
  });

  it("sends each due message once when two sweeps claim at the same time", async () => {
    const phones = Array.from({ length: 20 }, (_, index) => `+336470000${String(index).padStart(2, "0")}`);
    const debts = await enrolledDebts(
      db,
      tenant,
      phones.map((phone) => ({ phone })),
      tuesdayMorning,
    );
    await Promise.all([runBatch(engine, live), runBatch(engine, live)]);
    expect(phones.map((phone) => textsTo(phone).length)).toEqual(phones.map(() => 1));
    for (const debt of debts)
      expect((await followupsOf(db, tenant.companyId, debt)).map((row) => row.status)).toEqual(["sent", "scheduled"]);
  });

  /**
   * Claims the first step of a new debt of `twoAttempts` as a worker that dies before recording its outcome
   * (its create `lost`: Twilio made the message; `none`: it never reached Twilio), recovers it after the send
   * timeout, runs the next round, and answers the step's attempts.
   */
  const crashThenRecover = async (phone: string, send: "lost" | "none") => {
    const recovering = { ...engineDependencies(db, tuesdayMorning, { sendTimeoutMs: 60_000 }), adapters };
    const [debt] = await enrolledDebts(db, twoAttempts, [{ phone }], tuesdayMorning);
    const prepared = await db.transaction().execute((trx) => prepareSends(trx, recovering, live, tuesdayMorning));
    if (send === "lost") {
      // The worker's create reaches Twilio, which makes the message; the worker dies before any answer.
      const { message } = prepared.sends.find((sent) => sent.context.debt_id === debt)!;
      const request = Twilio.messageRequest(account.accountSid, {
        channel: "sms",
        to: phone,
        from: TWILIO_SMS_FROM,
        body: message.body,
        statusCallback: `${CALLBACK_ORIGIN}/status`,
      });
      const created = await fetch(`${twilio.baseUrl}${request.path}`, {
        method: "POST",
        headers: { authorization: Twilio.basicAuthorization(account) },
        body: request.form,
      });
      expect(created.status).toBe(201);
    }
    const late = new Date(tuesdayMorning.getTime() + 61_000);
    recovering.clock.set(late);
    expect((await recoverStaleSends(recovering)).rescheduled).toBe(0);
    await runBatch(recovering, { kind: "live", now: late });
    return smsAttemptsOf(debt!, twoAttempts);
  };

  it("records, never resends, a send a worker left in_progress that Twilio's list holds", async () => {
    const attempts = await crashThenRecover("+33648484848", "lost");
    const texts = textsTo("+33648484848");
    expect(texts).toHaveLength(1);
    expect(attempts.map((row) => [row.attempt, row.status, row.provider_message_id, row.notes])).toEqual([
      [1, "sent", texts[0]!.sid, null],
    ]);
  });

  it("fails for good, never sends, a send a worker left in_progress that Twilio's list lacks", async () => {
    const attempts = await crashThenRecover("+33648585858", "none");
    expect(textsTo("+33648585858")).toEqual([]);
    expect(attempts.map((row) => [row.attempt, row.status, row.notes])).toEqual([
      [
        1,
        "failed",
        "twilio outcome unknown: the send was interrupted before Twilio's answer was recorded; no such message in Twilio's list; not sent again",
      ],
    ]);
  });

  it("fails for good a send a worker left in_progress when Twilio's list fails", async () => {
    twilio.failLists(4, 500);
    const attempts = await crashThenRecover("+33648686868", "lost");
    expect(textsTo("+33648686868")).toHaveLength(1);
    expect(attempts.map((row) => [row.attempt, row.status, row.notes])).toEqual([
      [
        1,
        "failed",
        "twilio outcome unknown: the send was interrupted before Twilio's answer was recorded; the message list failed (HTTP 500 after 4 attempts); not sent again",
      ],
    ]);
  });

  it("fails the step for good on a permanent refusal, with Twilio's code and message", async () => {
    twilio.failNext({
      status: 400,
      body: { code: 21211, message: "The 'To' number +33655555555 is not a valid phone number.", status: 400 },
    });
    const followup = await sendOne("+33655555555");
    expect(followup).toMatchObject({
      status: "failed",
      notes: "twilio error 21211: The 'To' number +33655555555 is not a valid phone number.",
    });
  });
});

const debtOfFollowup = async (id: number) =>
  (
    await db
      .selectFrom("followups")
      .select("debt_id")
      .where("company_id", "=", tenant.companyId)
      .where("id", "=", id)
      .executeTakeFirstOrThrow()
  ).debt_id;
const statusOf = (id: number, on = tenant) =>
  db
    .selectFrom("followups")
    .select(["status", "notes"])
    .where("company_id", "=", on.companyId)
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
const processedCount = async (sid: string) => {
  const rows = await db
    .selectFrom("provider_events")
    .select(["processed_at"])
    .where("company_id", "=", tenant.companyId)
    .where("event_key", "like", `status:${sid}:%`)
    .execute();
  return { total: rows.length, processed: rows.filter((row) => row.processed_at !== null).length };
};
