/**
 * Provider callbacks between companies (docs/decisions/0630, 0686). A
 * provider's signature authenticates the platform's provider account, not a
 * company: the company is the one the callback's URL names. So a correctly
 * signed callback on company B's URL that names company A's message (a
 * MessageSid, a reply from A's debtor's number, a call's `call_id` or
 * followup) is stored for B, as the api stores it, and the provider-events
 * task applies it to B's followups only: nothing of A changes, B's own
 * callbacks still apply, and so do A's on A's URL.
 */
import { providerCallbacks } from "@dc/contract";
import { storeProviderEvents } from "@dc/db";
import type { TimelineDefinition } from "@dc/domain";
import { type ReceivedCallback, Retell, Twilio } from "@dc/providers";
import { companyDigest, startFakeRetell, startFakeTwilio, useTestDatabase } from "@dc/testing";
import { afterAll, describe, expect, it } from "vitest";
import { runBatch } from "../../src/engine/run-batch.ts";
import { applyProviderEvents } from "../../src/provider-events/apply-provider-events.ts";
import {
  createEngineTenant,
  engineDependencies,
  enrolledDebts,
  followupsOf,
  tuesdayMorning,
} from "../engine/engine-fixtures.ts";
import { testIds } from "../snapshot-fixtures.ts";
import { aiCallStep, fakeProviderAdapters, twilioValues } from "./channel-fixtures.ts";

const PUBLIC_BASE_URL = "https://api.collect.example";
const SMS_FROM = "+14155550100";
const account = { accountSid: "AC00000000000000000000000000000086", authToken: "twilio-isolation-token" };

const { db } = await useTestDatabase();
const [twilio, retell] = await Promise.all([startFakeTwilio(account), startFakeRetell()]);
afterAll(() => Promise.all([twilio.close(), retell.close()]));

const base = engineDependencies(db, tuesdayMorning);
const adapters = fakeProviderAdapters(
  db,
  {
    ...twilioValues(twilio, account),
    TWILIO_SMS_FROM: SMS_FROM,
    RETELL_BASE_URL: retell.url,
    RETELL_API_KEY: retell.apiKey,
    RETELL_FROM_NUMBER: "+14155550199",
  },
  { publicBaseUrl: PUBLIC_BASE_URL, now: () => base.clock.now() },
);
const engine = { ...base, adapters };

/** An SMS on day 0, an AI call on day 1. */
const smsThenCall: TimelineDefinition.Definition = {
  scheduling: { time_zone: "Europe/Paris", weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
  steps: [
    { day_offset: 0, channel: "sms", configuration: { max_attempts: 1 }, content: {} },
    aiCallStep(1),
  ],
};

const a = await createEngineTenant(db, { definition: smsThenCall });
const b = await createEngineTenant(db, { definition: smsThenCall });
const aPhones = ["+33680000001", "+33680000002"];
const aDebts = await enrolledDebts(
  db,
  a,
  aPhones.map((phone) => ({ phone })),
  tuesdayMorning,
);
const [bDebt] = await enrolledDebts(db, b, [{ phone: "+33680000009" }], tuesdayMorning);
// Day 0: every SMS goes; day 1: A's two calls (and B's) are placed and still in progress.
await runBatch(engine, { kind: "live", now: tuesdayMorning });
const wednesdayMorning = new Date(tuesdayMorning.getTime() + 86_400_000);
base.clock.set(wednesdayMorning);
await runBatch(engine, { kind: "live", now: wednesdayMorning });

const stepOf = async (companyId: number, debtId: number, step: number) => {
  const followup = (await followupsOf(db, companyId, debtId)).find((row) => row.step === step);
  expect(followup, `step ${step} of debt ${debtId}`).toBeDefined();
  return followup!;
};
const aSms = await Promise.all(aDebts.map((debtId) => stepOf(a.companyId, debtId, 0)));
const aCalls = await Promise.all(aDebts.map((debtId) => stepOf(a.companyId, debtId, 1)));
const bSms = await stepOf(b.companyId, bDebt!, 0);
const publicId = (companyId: number) => testIds.encode("company", companyId);

/** Stores verified callbacks for `companyId` as the api's route on that company's URL does; answers how many were new. */
const store = async (companyId: number, provider: "twilio" | "retell", received: ReadonlyArray<ReceivedCallback>) =>
  (await storeProviderEvents(db, companyId, provider, received)).stored;

/** A Twilio callback on `companyId`'s URL, signed by Twilio and verified as the api verifies it, then stored. */
const twilioCallback = async (companyId: number, kind: "status" | "inbound", params: Record<string, string>) => {
  const route = kind === "status" ? providerCallbacks.twilioMessageStatus : providerCallbacks.twilioIncomingMessage;
  const url = `${PUBLIC_BASE_URL}${route.path.replace("{company_id}", publicId(companyId))}`;
  const entries = Object.entries(params);
  expect(Twilio.verifyTwilioSignature(account.authToken, url, entries, twilio.sign(url, params))).toBe(true);
  return store(companyId, "twilio", [Twilio.receivedCallback(kind, entries)!]);
};

/**
 * A Retell webhook body on `companyId`'s URL, signed by Retell and passing
 * the api's checks (the signature, and metadata naming no company or this
 * one), then stored.
 */
const retellCallback = async (companyId: number, rawBody: string) => {
  expect(Retell.verifySignature(retell.apiKey, rawBody, await retell.sign(rawBody), new Date())).toBe(true);
  const payload: unknown = JSON.parse(rawBody);
  const envelope = Retell.webhookEnvelope(payload)!;
  expect([undefined, publicId(companyId)]).toContain(envelope.metadata.company_id);
  return store(companyId, "retell", [{ eventKey: envelope.eventKey, payload }]);
};

/** Retell's `call_analyzed` of `callId` with its metadata changed by `metadata`. */
const analysedWith = async (callId: string, metadata: (named: Record<string, string>) => Record<string, string>) => {
  const { rawBody } = await retell.webhook(callId, "call_analyzed");
  const body = JSON.parse(rawBody) as { call: { metadata: Record<string, string> } };
  return JSON.stringify({ ...body, call: { ...body.call, metadata: metadata(body.call.metadata) } });
};

const bEvents = () =>
  db
    .selectFrom("provider_events")
    .select(["event_key", "followup_id", "processed_at"])
    .where("company_id", "=", b.companyId)
    .orderBy("id")
    .execute();

describe("a signed callback on company B's URL naming company A's message", () => {
  it("changes nothing of A; B's own callbacks and A's on A's URL still apply", async () => {
    expect(aSms.map((followup) => followup.status)).toEqual(["sent", "sent"]);
    expect(aCalls.map((followup) => followup.status)).toEqual(["in_progress", "in_progress"]);
    for (const call of aCalls) {
      retell.end(call.provider_message_id!, {
        disconnection_reason: "user_hangup",
        duration_ms: 95_000,
        recording: true,
        call_analysis: {
          call_summary: "The debtor will pay on Friday.",
          in_voicemail: false,
          user_sentiment: "Neutral",
          custom_analysis_data: { collection_outcome: "promise_to_pay", promise_to_pay_date: "2030-01-17" },
        },
      });
    }
    const aBefore = await companyDigest(db, a.companyId);

    // Twilio: A's message failed, and A's debtors reply STOP and dispute, all on B's URLs.
    const failed = { MessageSid: aSms[0]!.provider_message_id!, MessageStatus: "failed", ErrorCode: "30003" };
    expect(await twilioCallback(b.companyId, "status", { ...failed, AccountSid: account.accountSid })).toBe(1);
    const stop = twilio.incoming({ from: aPhones[0]!, to: SMS_FROM, body: "STOP" });
    const dispute = twilio.incoming({ from: aPhones[1]!, to: SMS_FROM, body: "This is not my debt" });
    expect(await twilioCallback(b.companyId, "inbound", stop)).toBe(1);
    expect(await twilioCallback(b.companyId, "inbound", dispute)).toBe(1);
    // Retell: A's calls analysed, naming A's call and followup, with no company or with B's, on B's URL.
    const [firstCall, secondCall] = aCalls.map((call) => call.provider_message_id!);
    const { company_id: _company, ...unnamed } = JSON.parse((await retell.webhook(firstCall!, "call_analyzed")).rawBody)
      .call.metadata as Record<string, string>;
    expect(unnamed["followup_id"]).toBe(testIds.encode("followup", aCalls[0]!.id));
    expect(await retellCallback(b.companyId, await analysedWith(firstCall!, () => unnamed))).toBe(1);
    const renamed = await analysedWith(secondCall!, (named) => ({ ...named, company_id: publicId(b.companyId) }));
    expect(await retellCallback(b.companyId, renamed)).toBe(1);

    await applyProviderEvents(engine, b.companyId);
    expect(await companyDigest(db, a.companyId)).toEqual(aBefore);
    // Processed, none linked to a followup: the replies came from numbers B never texted, and the rest name no
    // followup of B (the engine's clock is years past their arrival, so they are dropped rather than kept waiting).
    expect((await bEvents()).map((event) => [event.event_key, event.followup_id, event.processed_at !== null])).toEqual(
      [
        [`status:${failed.MessageSid}:failed`, null, true],
        [`inbound:${stop["MessageSid"]}`, null, true],
        [`inbound:${dispute["MessageSid"]}`, null, true],
        [`${firstCall}:call_analyzed`, null, true],
        [`${secondCall}:call_analyzed`, null, true],
      ],
    );

    // B's own delivery report still applies behind them.
    const delivered = {
      MessageSid: bSms.provider_message_id!,
      MessageStatus: "delivered",
      AccountSid: account.accountSid,
    };
    expect(await twilioCallback(b.companyId, "status", delivered)).toBe(1);
    await applyProviderEvents(engine, b.companyId);
    expect(await stepOf(b.companyId, bDebt!, 0)).toMatchObject({ status: "delivered" });
    expect(await companyDigest(db, a.companyId)).toEqual(aBefore);

    // A's own webhook on A's URL records the outcome the foreign copy did not.
    const own = await retell.webhook(firstCall!, "call_analyzed");
    expect(own.url).toBe(`${PUBLIC_BASE_URL}${Retell.webhookPath(publicId(a.companyId))}`);
    expect(await retellCallback(a.companyId, own.rawBody)).toBe(1);
    await applyProviderEvents(engine, a.companyId);
    expect(await stepOf(a.companyId, aDebts[0]!, 1)).toMatchObject({
      status: "deal_found",
      provider_message_id: firstCall,
    });
    expect(await stepOf(a.companyId, aDebts[1]!, 1)).toMatchObject({ status: "in_progress" });
    expect(await stepOf(a.companyId, aDebts[0]!, 0)).toMatchObject({ status: "sent", notes: null });
  });
});
