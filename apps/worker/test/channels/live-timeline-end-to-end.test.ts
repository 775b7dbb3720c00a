/**
 * Issue 27 end to end: a live company, pointed at the fake providers on real
 * sockets, runs a timeline of an e-mail (day 0), an SMS (day 1), an AI call
 * (day 2) and a letter (day 3) on a manual clock, one live sweep a day. Each
 * provider reports its outcome as it documents it, signed; the signature is
 * checked with the verifier the api's callback routes use, the callback is
 * stored as those routes store it and applied by the provider-events task's
 * body. At the end every followup holds what its provider reported, the
 * debt counts its contacts and the enrollment is completed.
 */
import { findStoredObject, storeProviderEvents } from "@dc/db";
import type { TimelineDefinition } from "@dc/domain";
import { Lob, Twilio } from "@dc/providers";
import { startFakeLob, startFakeRetell, startFakeTwilio, startTestSmtpServer, useTestDatabase } from "@dc/testing";
import { afterAll, describe, expect, it } from "vitest";
import { sweepLive } from "../../src/engine/live-sweep.ts";
import { applyProviderEvents } from "../../src/provider-events/apply-provider-events.ts";
import {
  createEngineTenant,
  debtOf,
  engineDependencies,
  enrolledDebts,
  enrollmentOf,
  tuesdayMorning,
} from "../engine/engine-fixtures.ts";
import { testIds } from "../snapshot-fixtures.ts";
import { aiCallStep, analysedCall, creditsOf, fakeProviderAdapters, retellWebhook, twilioValues } from "./channel-fixtures.ts";

const PUBLIC_BASE_URL = "https://api.collect.example";
const SMS_FROM = "+14155550100";
const CALL_FROM = "+14155550199";
const LOB_KEY = "test_lob_key_e2e_0123456789";
const LOB_SECRET = "lob_webhook_secret_e2e";
const twilioAccount = { accountSid: "AC00000000000000000000000000000027", authToken: "twilio-e2e-token" };

const { db } = await useTestDatabase();
const [smtp, twilio, retell, lob] = await Promise.all([
  startTestSmtpServer(),
  startFakeTwilio(twilioAccount),
  startFakeRetell(),
  startFakeLob({ apiKey: LOB_KEY }),
]);

const timeline: TimelineDefinition.Definition = {
  scheduling: { time_zone: "Europe/Paris", weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
  steps: [
    { day_offset: 0, channel: "email", configuration: {}, content: { subject: "Invoice {{ invoice_reference }}" } },
    { day_offset: 1, channel: "sms", configuration: { max_attempts: 1 }, content: {} },
    aiCallStep(2),
    { day_offset: 3, channel: "postmail", configuration: {}, content: {} },
  ],
};
const tenant = await createEngineTenant(db, { definition: timeline, credits: 100 });
const [debtId] = await enrolledDebts(
  db,
  tenant,
  [{ email: "jeanne@debtor.example", phone: "+33612345678" }],
  tuesdayMorning,
);
await db
  .updateTable("debts")
  .set({ street_number: "12", street_address: "rue de la Paix", postal_code: "75002", city: "Paris" })
  .where("company_id", "=", tenant.companyId)
  .where("id", "=", debtId!)
  .execute();

const base = engineDependencies(db, tuesdayMorning);
const { clock } = base;
const adapters = fakeProviderAdapters(
  db,
  {
    ...twilioValues(twilio, twilioAccount),
    TWILIO_SMS_FROM: SMS_FROM,
    RETELL_BASE_URL: retell.url,
    RETELL_API_KEY: retell.apiKey,
    RETELL_FROM_NUMBER: CALL_FROM,
    LOB_BASE_URL: lob.url,
    LOB_API_KEY: LOB_KEY,
    LOB_WEBHOOK_SECRET: LOB_SECRET,
    LOB_FROM_ADDRESS: "adr_return01",
  },
  {
    smtp: { url: smtp.url, from: "Collections <collect@mail.example>" },
    publicBaseUrl: PUBLIC_BASE_URL,
    now: () => clock.now(),
  },
);
const engine = { ...base, adapters };

afterAll(async () => {
  await adapters.close?.();
  await Promise.all([smtp.close(), twilio.close(), retell.close(), lob.close()]);
});

const DAY_MS = 86_400_000;
/** Day `n` of the timeline, at the enrollment's time of day (10:00 in Paris). */
const day = (n: number) => new Date(tuesdayMorning.getTime() + n * DAY_MS);

const followups = () =>
  db
    .selectFrom("followups")
    .selectAll()
    .where("company_id", "=", tenant.companyId)
    .where("debt_id", "=", debtId!)
    .orderBy("id")
    .execute();
const followupOfStep = async (step: number) => {
  const rows = (await followups()).filter((row) => row.step === step);
  expect(rows).toHaveLength(1);
  return rows[0]!;
};
const credits = () => creditsOf(db, tenant.companyId);

/** Stores verified callbacks as the api's routes do, then runs the provider-events task's body. */
const store = async (provider: "twilio" | "retell" | "lob", received: Parameters<typeof storeProviderEvents>[3]) => {
  const { stored } = await storeProviderEvents(db, tenant.companyId, provider, received);
  await applyProviderEvents(engine, tenant.companyId);
  return stored;
};

/** The sweep of `at`: the clock moves there first. */
const sweepAt = async (at: Date) => {
  clock.set(at);
  return sweepLive(engine);
};

describe("a live company's e-mail, SMS, call and letter timeline against the fake providers", () => {
  it("runs to completion with every outcome as the providers reported it", async () => {
    const creditsBefore = await credits();

    // Day 0: the e-mail goes over SMTP.
    await sweepAt(day(0));
    const email = await followupOfStep(0);
    expect(email).toMatchObject({ type: "email", status: "sent", recipient: "jeanne@debtor.example" });
    expect(smtp.received.map((mail) => mail.envelope.to)).toEqual([["jeanne@debtor.example"]]);
    expect(smtp.received[0]!.parsed.subject).toBe("Invoice INV-0");
    expect((await followups()).map((row) => [row.step, row.status])).toEqual([
      [0, "sent"],
      [1, "scheduled"],
    ]);

    // Day 1: the SMS through Twilio, then Twilio's signed `delivered` status callback.
    await sweepAt(day(1));
    const [message] = twilio.messages;
    expect(message?.form).toMatchObject({ To: "+33612345678", From: SMS_FROM });
    const statusUrl = message!.form["StatusCallback"]!;
    expect(statusUrl).toBe(
      `${PUBLIC_BASE_URL}/provider-callbacks/twilio/${testIds.encode("company", tenant.companyId)}/status`,
    );
    const statusParams = {
      AccountSid: twilioAccount.accountSid,
      MessageSid: message!.sid,
      MessageStatus: "delivered",
      To: "+33612345678",
      From: SMS_FROM,
      ApiVersion: "2010-04-01",
    };
    const params = Object.entries(statusParams);
    expect(
      Twilio.verifyTwilioSignature(twilioAccount.authToken, statusUrl, params, twilio.sign(statusUrl, statusParams)),
    ).toBe(true);
    expect(await store("twilio", [Twilio.receivedCallback("status", params)!])).toBe(1);
    expect(await followupOfStep(1)).toMatchObject({
      type: "sms",
      status: "delivered",
      recipient: "+33612345678",
      provider_message_id: message!.sid,
    });

    // Day 2: the AI call through Retell; it ends, is analysed (no deal), and both signed webhooks come in.
    await sweepAt(day(2));
    const callId = [...retell.calls.keys()].at(-1)!;
    expect(await followupOfStep(2)).toMatchObject({ status: "in_progress", provider_message_id: callId });
    retell.start(callId);
    retell.end(
      callId,
      analysedCall(
        { collection_outcome: "refused" },
        { duration_ms: 130_000 },
        { call_summary: "The debtor refuses to pay before the end of the month.", user_sentiment: "Negative" },
      ),
    );
    for (const event of ["call_ended", "call_analyzed"] as const) {
      expect(await store("retell", [(await retellWebhook(retell, callId, event)).received])).toBe(1);
    }
    const call = retell.calls.get(callId)!;

    // Day 3: the letter through Lob, then Lob's signed `letter.delivered` event.
    await sweepAt(day(3));
    const sentLetter = await followupOfStep(3);
    expect(sentLetter).toMatchObject({ type: "postmail", status: "sent" });
    const letter = lob.letters.get(sentLetter.provider_message_id!)!;
    expect(letter.to).toMatchObject({
      address_line1: "12 rue de la Paix",
      address_zip: "75002",
      address_city: "Paris",
    });
    const event = lob.event(letter, "letter.delivered", LOB_SECRET);
    expect(
      Lob.verifyLobSignature(
        LOB_SECRET,
        { signature: event.headers["lob-signature"], timestamp: event.headers["lob-signature-timestamp"] },
        Buffer.from(event.body),
        new Date(),
      ),
    ).toBe("valid");
    expect(await store("lob", [Lob.receivedCallback(JSON.parse(event.body))!])).toBe(1);
    // The last step settled: the enrollment is complete, and a later sweep sends nothing more.
    expect(await enrollmentOf(db, tenant.companyId, debtId!)).toMatchObject({ state: "completed" });
    await sweepAt(day(4));
    expect([smtp.received.length, twilio.messages.length, retell.calls.size, lob.letters.size]).toEqual([1, 1, 1, 1]);

    // Every followup, as its provider reported it.
    const rows = await followups();
    expect(rows.map((row) => [row.step, row.type, row.status])).toEqual([
      [0, "email", "sent"],
      [1, "sms", "delivered"],
      [2, "call", "deal_not_found"],
      [3, "postmail", "delivered"],
    ]);
    const [emailRow, smsRow, callRow, letterRow] = rows;
    expect(emailRow).toMatchObject({ processed_at: day(0), call_id: null, pdf_object_key: null });
    expect(smsRow).toMatchObject({ processed_at: day(1), provider_message_id: message!.sid });
    expect(callRow).toMatchObject({
      call_id: callId,
      provider_message_id: callId,
      duration_ms: 130_000,
      disconnection_reason: "user_hangup",
      summary: "The debtor refuses to pay before the end of the month.",
      audio_object_key: `https://recordings.fake-retell.test/${callId}.wav`,
      direction: "outbound",
      phone_number_used: CALL_FROM,
      recipient: "+33612345678",
      call_date: new Date(call["start_timestamp"] as number),
      credits_charged: 3,
    });
    expect(callRow!.processed_at).toEqual(day(2));
    expect(letterRow).toMatchObject({ provider_message_id: letter.id, processed_at: day(3) });
    expect(letterRow!.pdf_object_key).toMatch(/^letters\/.+\.pdf$/);
    const pdf = await findStoredObject(db, tenant.companyId, letterRow!.pdf_object_key!);
    expect(Buffer.from(pdf!.body).subarray(0, 5).toString()).toBe("%PDF-");
    // Credits: e-mail and post 0, one SMS 1, a call of 2 min 10 s 3 (one per started minute).
    expect(rows.map((row) => row.credits_charged)).toEqual([0, 1, 3, 0]);
    expect(await credits()).toBe(creditsBefore - 4);

    expect(await debtOf(db, tenant.companyId, debtId!)).toMatchObject({
      nb_reminders: 4,
      nb_answered: 1,
      followups_count: 4,
    });
    expect(await enrollmentOf(db, tenant.companyId, debtId!)).toMatchObject({ state: "completed", next_step: 4 });
    const events = await db
      .selectFrom("provider_events")
      .select(["provider", "processed_at"])
      .where("company_id", "=", tenant.companyId)
      .orderBy("id")
      .execute();
    expect(events.map((row) => [row.provider, row.processed_at !== null])).toEqual([
      ["twilio", true],
      ["retell", true],
      ["retell", true],
      ["lob", true],
    ]);
  });
});
