/**
 * AI calls through Retell (docs/decisions/0640, 0641), against a fake Retell
 * on a real socket: the call we create is the documented request; each
 * webhook, stored in the provider inbox as the api stores it and applied by
 * the provider-events task, moves the followup as documented; a duplicated
 * webhook changes nothing twice; a call with no webhook is polled; an
 * outage is retried, then failed; credits follow the real duration; a
 * dispute in the analysis becomes a review item that holds the debt until
 * the hold is lifted.
 */
import { liftDetectionHolds, storeProviderEvents } from "@dc/db";
import type { TimelineDefinition } from "@dc/domain";
import { providerSettingsOf } from "@dc/providers";
import { startFakeRetell, useTestDatabase } from "@dc/testing";
import { afterAll, describe, expect, it } from "vitest";
import type { ChannelAdapters } from "../../src/channels/channel-adapter.ts";
import { makeChannelAdapters } from "../../src/channels/adapters.ts";
import { createProviderHttp, DEFAULT_PROVIDER_HTTP } from "../../src/channels/provider-http.ts";
import { retellAdapter } from "../../src/channels/retell-adapter.ts";
import { sandboxAdapter } from "../../src/channels/sandbox-adapter.ts";
import { recoverStaleSends } from "../../src/engine/recover-sends.ts";
import { runBatch } from "../../src/engine/run-batch.ts";
import { applyProviderEvents } from "../../src/provider-events/apply-provider-events.ts";
import { testIds } from "../snapshot-fixtures.ts";
import { aiCallStep, analysedCall, creditsOf, retellWebhook } from "./channel-fixtures.ts";
import {
  createEngineTenant,
  debtOf,
  engineDependencies,
  enrolledDebts,
  enrollmentOf,
  tuesdayMorning,
} from "../engine/engine-fixtures.ts";

const { db } = await useTestDatabase();
const retell = await startFakeRetell();
afterAll(() => retell.close());

const FROM = "+14155550100";
const ORIGIN = "https://api.collect.example";
const settings = { baseUrl: retell.url, apiKey: retell.apiKey, fromNumber: FROM };
const sleeps: number[] = [];
const http = createProviderHttp(
  { ...DEFAULT_PROVIDER_HTTP, maxAttempts: 3, sendRatePerSecond: 1_000_000 },
  async (ms) => {
    sleeps.push(ms);
  },
);

/** One AI call (two attempts) at day 0, an e-mail at day 1. */
const callTimeline: TimelineDefinition.Definition = {
  scheduling: { time_zone: "Europe/Paris", weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
  steps: [
    aiCallStep(0, 2),
    { day_offset: 1, channel: "email", configuration: {}, content: {} },
  ],
};

const setup = async (phone: string) => {
  const engine = engineDependencies(db, tuesdayMorning, { sendTimeoutMs: 600_000 });
  const calls = retellAdapter({ settings, http, callbackOrigin: ORIGIN, ids: testIds, now: () => engine.clock.now() });
  const sandbox = sandboxAdapter(db);
  const adapters: ChannelAdapters = { adapterFor: (_company, channel) => (channel === "ai_call" ? calls : sandbox) };
  const dependencies = { ...engine, adapters };
  const tenant = await createEngineTenant(db, { definition: callTimeline });
  const [debtId] = await enrolledDebts(db, tenant, [{ phone }], tuesdayMorning);
  return { engine: dependencies, clock: engine.clock, tenant, debtId: debtId! };
};

const followupOf = (companyId: number, debtId: number, step = 0) =>
  db
    .selectFrom("followups")
    .selectAll()
    .where("company_id", "=", companyId)
    .where("debt_id", "=", debtId)
    .where("step", "=", step)
    .orderBy("id")
    .execute();

/** What the api does with a verified webhook: stores it in the inbox (once per key). */
const receive = async (companyId: number, callId: string, event: "call_started" | "call_ended" | "call_analyzed") => {
  const { url, envelope, received } = await retellWebhook(retell, callId, event);
  expect(url).toBe(`${ORIGIN}/provider-callbacks/retell/${envelope.metadata.company_id}`);
  return (await storeProviderEvents(db, companyId, "retell", [received])).stored;
};

describe("AI calls through Retell", () => {
  it("creates the call as Retell documents it and answers accepted with the call id", async () => {
    const { engine, tenant, debtId } = await setup("+33612345678");
    await runBatch(engine, { kind: "live", now: tuesdayMorning });
    const [followup] = await followupOf(tenant.companyId, debtId);
    const request = retell.requests.at(-1)!;
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v2/create-phone-call");
    expect(request.headers.authorization).toBe(`Bearer ${retell.apiKey}`);
    expect(request.headers["content-type"]).toBe("application/json");
    const company = testIds.encode("company", tenant.companyId);
    const followupPublic = testIds.encode("followup", followup!.id);
    expect(request.body).toEqual({
      from_number: FROM,
      to_number: "+33612345678",
      override_agent_id: "agent_collect",
      agent_override: {
        agent: {
          webhook_url: `${ORIGIN}/provider-callbacks/retell/${company}`,
          webhook_events: ["call_started", "call_ended", "call_analyzed"],
          voice_id: "11labs-Adrian",
          max_call_duration_ms: 300_000,
        },
      },
      metadata: { company_id: company, followup_id: followupPublic, idempotency_key: `${followupPublic}:1` },
      retell_llm_dynamic_variables: expect.objectContaining({
        company_name: "Acme Recouvrement",
        script: expect.any(String),
      }),
    });
    const callId = [...retell.calls.keys()].at(-1)!;
    expect(followup).toMatchObject({ status: "in_progress", provider_message_id: callId, processed_at: null });
  });

  it("moves the followup with each webhook, once, and charges the real duration", async () => {
    const { engine, clock, tenant, debtId } = await setup("+33612345601");
    await runBatch(engine, { kind: "live", now: tuesdayMorning });
    const callId = [...retell.calls.keys()].at(-1)!;
    const credits = () => creditsOf(db, tenant.companyId);
    const before = await credits();

    retell.start(callId);
    expect(await receive(tenant.companyId, callId, "call_started")).toBe(1);
    await applyProviderEvents(engine, tenant.companyId);
    expect((await followupOf(tenant.companyId, debtId))[0]).toMatchObject({ status: "in_progress" });

    retell.end(callId, analysedCall({ collection_outcome: "promise_to_pay", promise_to_pay_date: "2030-01-17" }));
    expect(await receive(tenant.companyId, callId, "call_ended")).toBe(1);
    await applyProviderEvents(engine, tenant.companyId);
    expect((await followupOf(tenant.companyId, debtId))[0]).toMatchObject({ status: "in_progress" });

    clock.set(new Date(tuesdayMorning.getTime() + 120_000));
    expect(await receive(tenant.companyId, callId, "call_analyzed")).toBe(1);
    await applyProviderEvents(engine, tenant.companyId);
    const call = retell.calls.get(callId)!;
    const [followup] = await followupOf(tenant.companyId, debtId);
    expect(followup).toMatchObject({
      status: "deal_found",
      type: "call",
      call_id: callId,
      provider_message_id: callId,
      duration_ms: 95_000,
      disconnection_reason: "user_hangup",
      audio_object_key: `https://recordings.fake-retell.test/${callId}.wav`,
      direction: "outbound",
      phone_number_used: FROM,
      summary: "The debtor will pay on Friday.",
      call_date: new Date(call["start_timestamp"] as number),
      credits_charged: 2,
    });
    expect(await credits()).toBe(before - 2);
    expect(await debtOf(db, tenant.companyId, debtId)).toMatchObject({ nb_reminders: 1, nb_answered: 1 });
    expect(await enrollmentOf(db, tenant.companyId, debtId)).toMatchObject({
      state: "paused",
      reason: "promise_to_pay",
      paused_until: new Date("2030-01-18T00:00:00Z"),
    });

    // Retell retries a webhook, or someone replays it: stored once, applied once.
    for (let i = 0; i < 2; i++) {
      expect(await receive(tenant.companyId, callId, "call_analyzed")).toBe(0);
      expect(await receive(tenant.companyId, callId, "call_ended")).toBe(0);
      await applyProviderEvents(engine, tenant.companyId);
    }
    expect((await followupOf(tenant.companyId, debtId))[0]).toEqual(followup);
    expect(await credits()).toBe(before - 2);
    expect(await debtOf(db, tenant.companyId, debtId)).toMatchObject({ nb_reminders: 1, nb_answered: 1 });
    const events = await db
      .selectFrom("provider_events")
      .select(["event_key", "processed_at"])
      .where("company_id", "=", tenant.companyId)
      .orderBy("id")
      .execute();
    expect(events.map((row) => [row.event_key, row.processed_at !== null])).toEqual([
      [`${callId}:call_started`, true],
      [`${callId}:call_ended`, true],
      [`${callId}:call_analyzed`, true],
    ]);
  });

  it("records a call that reached voicemail as a voicemail followup at call_ended", async () => {
    const { engine, tenant, debtId } = await setup("+33612345603");
    await runBatch(engine, { kind: "live", now: tuesdayMorning });
    const callId = [...retell.calls.keys()].at(-1)!;
    retell.start(callId);
    retell.end(callId, { disconnection_reason: "voicemail_reached", duration_ms: 25_000 });
    await receive(tenant.companyId, callId, "call_ended");
    await applyProviderEvents(engine, tenant.companyId);
    expect((await followupOf(tenant.companyId, debtId))[0]).toMatchObject({
      status: "no_answer",
      type: "voicemail",
      disconnection_reason: "voicemail_reached",
      credits_charged: 1,
    });
    expect(await debtOf(db, tenant.companyId, debtId)).toMatchObject({ nb_reminders: 1, nb_answered: 0 });
  });

  it("polls a call whose webhooks never came, after the send timeout", async () => {
    const { engine, clock, tenant, debtId } = await setup("+33612345604");
    await runBatch(engine, { kind: "live", now: tuesdayMorning });
    const callId = [...retell.calls.keys()].at(-1)!;
    retell.start(callId);
    clock.set(new Date(tuesdayMorning.getTime() + 601_000));
    await recoverStaleSends(engine);
    expect((await followupOf(tenant.companyId, debtId))[0]).toMatchObject({
      status: "in_progress",
      provider_message_id: callId,
    });
    const polls = retell.requests.filter((request) => request.path === `/v2/get-call/${callId}`);
    expect(polls).toHaveLength(1);
    expect(polls[0]!.headers.authorization).toBe(`Bearer ${retell.apiKey}`);

    retell.end(callId, analysedCall({ collection_outcome: "refused" }, { duration_ms: 130_000 }));
    clock.set(new Date(tuesdayMorning.getTime() + 1_202_000));
    await recoverStaleSends(engine);
    expect((await followupOf(tenant.companyId, debtId))[0]).toMatchObject({
      status: "deal_not_found",
      call_id: callId,
      duration_ms: 130_000,
      credits_charged: 3,
    });
  });

  it("retries an outage with backoff, then fails the attempt and schedules the next", async () => {
    const { engine, tenant, debtId } = await setup("+33612345605");
    sleeps.length = 0;
    const created = retell.calls.size;
    retell.failNext(3, 503, 2);
    await runBatch(engine, { kind: "live", now: tuesdayMorning });
    expect(retell.calls.size).toBe(created);
    // Retry-After (2 s) outweighs the first backoffs (0.5 s, 1 s); no wait after the last attempt.
    expect(sleeps.filter((ms) => ms >= 100)).toEqual([2000, 2000]);
    expect(retell.requests.slice(-3).map((request) => request.path)).toEqual(Array(3).fill("/v2/create-phone-call"));
    const attempts = await followupOf(tenant.companyId, debtId);
    expect(attempts.map((row) => [row.attempt, row.status, row.is_retry])).toEqual([
      [1, "failed", false],
      [2, "scheduled", true],
    ]);
    expect(attempts[0]!.notes).toMatch(/^retell: HTTP 503 after 3 attempts: fake outage \(503\)/);
    expect(attempts[0]!.credits_charged).toBe(0);
  });

  it("never places a call again whose create answer was lost, nor retries the step", async () => {
    const { engine, tenant, debtId } = await setup("+33612345615");
    const created = retell.calls.size;
    retell.loseNextAnswers(1);
    await runBatch(engine, { kind: "live", now: tuesdayMorning });
    expect(retell.calls.size).toBe(created + 1);
    const attempts = await followupOf(tenant.companyId, debtId);
    expect(attempts.map((row) => [row.attempt, row.status, row.is_retry])).toEqual([[1, "failed", false]]);
    expect(attempts[0]!.notes).toMatch(/^retell outcome unknown: network error: .*; the call is not placed again$/);
  });

  it("turns a dispute into a suggested review item that holds the debt until lifted", async () => {
    const { engine, clock, tenant, debtId } = await setup("+33612345606");
    await runBatch(engine, { kind: "live", now: tuesdayMorning });
    const callId = [...retell.calls.keys()].at(-1)!;
    retell.start(callId);
    retell.end(
      callId,
      analysedCall({
        collection_outcome: "refused",
        debt_disputed: true,
        objection_raised: true,
        detection_excerpt: "I never signed this contract",
      }),
    );
    await receive(tenant.companyId, callId, "call_analyzed");
    await applyProviderEvents(engine, tenant.companyId);
    const [followup] = await followupOf(tenant.companyId, debtId);
    const detections = await db
      .selectFrom("ai_detections")
      .select(["type", "review_status", "blocking", "excerpt", "followup_id", "debt_id"])
      .where("company_id", "=", tenant.companyId)
      .orderBy("id")
      .execute();
    expect(detections).toEqual([
      {
        type: "ai_dispute",
        review_status: "suggested",
        blocking: true,
        excerpt: "I never signed this contract",
        followup_id: followup!.id,
        debt_id: debtId,
      },
      {
        type: "objection",
        review_status: "suggested",
        blocking: false,
        excerpt: "I never signed this contract",
        followup_id: followup!.id,
        debt_id: debtId,
      },
    ]);

    const nextDay = new Date(tuesdayMorning.getTime() + 86_400_000);
    clock.set(nextDay);
    await runBatch(engine, { kind: "live", now: nextDay });
    const [held] = await followupOf(tenant.companyId, debtId, 1);
    expect(held).toMatchObject({ status: "scheduled", guard_reason: "hold" });
    expect(held!.scheduled_at!.getTime()).toBeGreaterThan(nextDay.getTime());

    await db
      .transaction()
      .execute((trx) => liftDetectionHolds(trx, { companyId: tenant.companyId, debtIds: [debtId], now: nextDay }));
    expect(
      (
        await db.selectFrom("ai_detections").select("blocking").where("company_id", "=", tenant.companyId).execute()
      ).map((row) => row.blocking),
    ).toEqual([false, false]);
    await runBatch(engine, { kind: "live", now: nextDay });
    expect((await followupOf(tenant.companyId, debtId, 1))[0]).toMatchObject({ status: "delivered" });
  });

  it("is the live ai_call provider once Retell, its number and the public origin are configured", async () => {
    const providers = providerSettingsOf({
      RETELL_BASE_URL: retell.url,
      RETELL_API_KEY: retell.apiKey,
      RETELL_FROM_NUMBER: FROM,
    });
    const configured = makeChannelAdapters(db, { smtp: undefined, providers, publicBaseUrl: ORIGIN }, testIds);
    const noOrigin = makeChannelAdapters(db, { smtp: undefined, providers }, testIds);
    const noNumber = makeChannelAdapters(
      db,
      { smtp: undefined, providers: providerSettingsOf({ RETELL_API_KEY: retell.apiKey }), publicBaseUrl: ORIGIN },
      testIds,
    );
    const message = {
      followupId: 1,
      idempotencyKey: "x:1",
      companyId: 1,
      debtId: 1,
      channel: "ai_call" as const,
      recipient: "+33612345678",
      subject: null,
      body: "",
      configuration: {},
      at: new Date(),
    };
    const errorOf = async (adapters: ChannelAdapters) => {
      const outcome = await adapters.adapterFor({ sandbox: false }, "ai_call").lookup(message, null);
      return outcome !== null && outcome.status === "failed" ? outcome.error : outcome?.status;
    };
    expect(await errorOf(configured)).toMatch(/^retell: the send was interrupted/);
    expect(await errorOf(noOrigin)).toMatch(/^channel_not_configured/);
    expect(await errorOf(noNumber)).toMatch(/^channel_not_configured/);
  });
});
