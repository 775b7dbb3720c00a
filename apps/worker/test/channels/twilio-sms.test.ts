import { storeProviderEvents } from "@dc/db";
import type { TimelineDefinition } from "@dc/domain";
import { startFakeTwilio, useTestDatabase } from "@dc/testing";
import { afterAll, describe, expect, it } from "vitest";
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
const twilio = await startFakeTwilio(account);
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
const engine = { ...engineDependencies(db, tuesdayMorning), adapters };
const live = { kind: "live", now: tuesdayMorning } as const;

/** Sends the first step of a new debt; answers its followup. */
const sendOne = async (phone: string) => {
  const [debt] = await enrolledDebts(db, tenant, [{ phone }], tuesdayMorning);
  await runBatch(engine, live);
  const [followup] = await followupsOf(db, tenant.companyId, debt!);
  return followup!;
};

/** Stores Twilio status callbacks as the api does, then runs the worker's task body. */
const callback = async (params: Record<string, string>) => {
  const key = `status:${params["MessageSid"]}:${params["MessageStatus"]}`;
  const { stored } = await storeProviderEvents(db, tenant.companyId, "twilio", [
    { eventKey: key, payload: { kind: "status", params } },
  ]);
  await applyProviderEvents(engine, tenant.companyId);
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
    expect(message.idempotencyToken).toBe(`${testIds.encode("followup", followup.id)}:1`);
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

  it("retries an outage with backoff and Retry-After, then fails the step with the reason", async () => {
    waits.length = 0;
    const before = twilio.server.requests.length;
    twilio.failNext(
      {
        status: 503,
        headers: { "retry-after": "3" },
        body: { code: 20503, message: "Service unavailable", status: 503 },
      },
      { status: 500, body: { code: 20500, message: "Internal Server Error", status: 500 } },
      { status: 500, body: { code: 20500, message: "Internal Server Error", status: 500 } },
      { status: 500, body: { code: 20500, message: "Internal Server Error", status: 500 } },
    );
    const followup = await sendOne("+33644444444");
    expect(twilio.server.requests.length - before).toBe(4);
    // Every attempt carried the same idempotency token: a retried create is never a second message.
    const tokens = twilio.server.requests.slice(before).map((request) => request.headers["i-twilio-idempotency-token"]);
    expect(new Set(tokens).size).toBe(1);
    expect(waits).toEqual([3000, 1000, 2000]);
    expect(followup).toMatchObject({ status: "failed", notes: "twilio unavailable: HTTP 500 after 4 attempts" });
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
const statusOf = (id: number) =>
  db
    .selectFrom("followups")
    .select(["status", "notes"])
    .where("company_id", "=", tenant.companyId)
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
