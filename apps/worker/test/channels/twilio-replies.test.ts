/**
 * Debtors' replies to SMS through Twilio's incoming-message webhook
 * (docs/decisions/0631): stored as the api stores them (Twilio's key, the
 * inbox), then applied by the worker's task body.
 */
import { storeProviderEvents } from "@dc/db";
import type { TimelineDefinition } from "@dc/domain";
import { Twilio } from "@dc/providers";
import { startFakeTwilio, useTestDatabase } from "@dc/testing";
import { afterAll, describe, expect, it } from "vitest";
import { runBatch } from "../../src/engine/run-batch.ts";
import { applyProviderEvents } from "../../src/provider-events/apply-provider-events.ts";
import {
  createEngineTenant,
  debtOf,
  enrolledDebts,
  engineDependencies,
  followupsOf,
  tuesdayMorning,
} from "../engine/engine-fixtures.ts";
import { TWILIO_SMS_FROM, TWILIO_WHATSAPP_FROM, twilioChannelAdapters } from "./channel-fixtures.ts";

const { db } = await useTestDatabase();
const account = { accountSid: "AC00000000000000000000000000000003", authToken: "twilio-replies-test-token" };
const twilio = await startFakeTwilio(account);
afterAll(() => twilio.close());

const smsFrom = TWILIO_SMS_FROM;
const adapters = twilioChannelAdapters(db, twilio, account);
/** Two SMS a day apart: the second shows what the first one's reply changed. */
const twoSms: TimelineDefinition.Definition = {
  scheduling: { time_zone: "Europe/Paris", weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
  steps: [
    { day_offset: 0, channel: "sms", configuration: { max_attempts: 1 }, content: {} },
    { day_offset: 1, channel: "sms", configuration: { max_attempts: 1 }, content: {} },
  ],
};
const tenant = await createEngineTenant(db, { definition: twoSms });
/** SMS, WhatsApp the next day, SMS the day after: what an SMS STOP leaves of one timeline. */
const smsWhatsAppSms = await createEngineTenant(db, {
  definition: {
    ...twoSms,
    steps: [
      twoSms.steps[0]!,
      { day_offset: 1, channel: "whatsapp", configuration: { max_attempts: 1 }, content: {} },
      { day_offset: 2, channel: "sms", configuration: { max_attempts: 1 }, content: {} },
    ],
  },
});
const engine = { ...engineDependencies(db, tuesdayMorning), adapters };

/** A debt of `on` whose first SMS went to `phone`; answers its id and the followup. */
const texted = async (phone: string, on = tenant) => {
  engine.clock.set(tuesdayMorning);
  const [debtId] = await enrolledDebts(db, on, [{ phone }], tuesdayMorning);
  await runBatch(engine, { kind: "live", now: tuesdayMorning });
  const [followup] = await followupsOf(db, on.companyId, debtId!);
  expect(followup).toMatchObject({ status: "sent", recipient: phone });
  return { debtId: debtId!, followup: followup! };
};

/** Twilio's incoming-message webhook to `on`'s route, stored as the api does, then the worker's run; answers how many were stored. */
const reply = async (params: Record<string, string>, on = tenant) => {
  const received = Twilio.receivedCallback("inbound", Object.entries(params))!;
  const { stored } = await storeProviderEvents(db, on.companyId, "twilio", [received]);
  await applyProviderEvents(engine, on.companyId);
  return stored;
};

/** Step `step` (day `step`) of a debt of `on`, once its day has come. */
const nextStep = async (debtId: number, on = tenant, step = 1) => {
  const day = new Date(tuesdayMorning.getTime() + step * 86_400_000);
  engine.clock.set(day);
  await runBatch(engine, { kind: "live", now: day });
  return (await followupsOf(db, on.companyId, debtId))[step]!;
};

const eventOf = (sid: string) =>
  db
    .selectFrom("provider_events")
    .select(["followup_id", "processed_at"])
    .where("company_id", "=", tenant.companyId)
    .where("event_key", "=", `inbound:${sid}`)
    .executeTakeFirstOrThrow();

const detectionsOf = (debtId: number) =>
  db
    .selectFrom("ai_detections")
    .select(["type", "review_status", "blocking", "excerpt", "followup_id"])
    .where("company_id", "=", tenant.companyId)
    .where("debt_id", "=", debtId)
    .execute();

describe("SMS replies through Twilio", () => {
  it("opts the number out of SMS on STOP, and the engine then blocks the SMS step", async () => {
    const { debtId, followup } = await texted("+33670000001");
    const stop = twilio.incoming({ from: "+33670000001", to: smsFrom, body: " Arrêt " });
    expect(await reply(stop)).toBe(1);
    const optOuts = await db
      .selectFrom("channel_opt_outs")
      .select(["channel", "source"])
      .where("company_id", "=", tenant.companyId)
      .where("debt_id", "=", debtId)
      .execute();
    expect(optOuts).toEqual([{ channel: "sms", source: "reply" }]);
    expect(await eventOf(stop["MessageSid"]!)).toMatchObject({
      followup_id: followup.id,
      processed_at: expect.any(Date),
    });
    expect((await debtOf(db, tenant.companyId, debtId)).nb_answered).toBe(0);

    const sent = twilio.messages.length;
    expect(await nextStep(debtId)).toMatchObject({ guard_reason: "opted_out" });
    expect(twilio.messages.length).toBe(sent);
  });

  it("opts out of SMS only on an SMS STOP: the WhatsApp step still goes, the next SMS step is blocked", async () => {
    const phone = "+33670000005";
    const { debtId } = await texted(phone, smsWhatsAppSms);
    expect(await reply(twilio.incoming({ from: phone, to: smsFrom, body: "STOP" }), smsWhatsAppSms)).toBe(1);

    const sent = twilio.messages.length;
    const whatsapp = await nextStep(debtId, smsWhatsAppSms, 1);
    expect(whatsapp).toMatchObject({ type: "whatsapp", status: "sent", guard_reason: null, recipient: phone });
    expect(twilio.messages.slice(sent).map((message) => [message.form["From"], message.form["To"], message.sid])).toEqual([
      [`whatsapp:${TWILIO_WHATSAPP_FROM}`, `whatsapp:${phone}`, whatsapp.provider_message_id],
    ]);

    const sms = await nextStep(debtId, smsWhatsAppSms, 2);
    expect(sms).toMatchObject({ type: "sms", guard_reason: "opted_out" });
    expect(sms.provider_message_id).toBeNull();
    expect(twilio.messages.length).toBe(sent + 1);
  });

  it("suggests a blocking dispute on a reply that reads as one, and the engine holds the debt", async () => {
    const { debtId, followup } = await texted("+33670000002");
    expect(await reply(twilio.incoming({ from: "+33670000002", to: smsFrom, body: "Ce n'est pas ma dette !" }))).toBe(
      1,
    );
    expect(await detectionsOf(debtId)).toEqual([
      {
        type: "ai_dispute",
        review_status: "suggested",
        blocking: true,
        excerpt: "Ce n'est pas ma dette !",
        followup_id: followup.id,
      },
    ]);
    expect((await debtOf(db, tenant.companyId, debtId)).nb_answered).toBe(1);

    const sent = twilio.messages.length;
    expect(await nextStep(debtId)).toMatchObject({ status: "scheduled", guard_reason: "hold" });
    expect(twilio.messages.length).toBe(sent);
  });

  it("counts an ordinary reply once as an answer, even when Twilio delivers it twice", async () => {
    const { debtId } = await texted("+33670000003");
    const answer = twilio.incoming({ from: "+33670000003", to: smsFrom, body: "OK, I will pay on Friday" });
    expect(await reply(answer)).toBe(1);
    expect(await reply(answer)).toBe(0);
    expect(await debtOf(db, tenant.companyId, debtId)).toMatchObject({ nb_answered: 1 });
    expect(await detectionsOf(debtId)).toEqual([]);
    // Neither an opt-out nor a hold: the next SMS goes.
    expect(await nextStep(debtId)).toMatchObject({ status: "sent", guard_reason: null });
  });

  it("answers the latest SMS sent to the number, and ignores a number it never texted", async () => {
    const first = await texted("+33670000004");
    const latest = await texted("+33670000004");
    const answer = twilio.incoming({ from: "+33670000004", to: smsFrom, body: "who is this" });
    await reply(answer);
    expect(await eventOf(answer["MessageSid"]!)).toMatchObject({ followup_id: latest.followup.id });
    expect((await debtOf(db, tenant.companyId, latest.debtId)).nb_answered).toBe(1);
    expect((await debtOf(db, tenant.companyId, first.debtId)).nb_answered).toBe(0);

    const before = await db
      .selectFrom("debts")
      .select(["id", "nb_answered"])
      .where("company_id", "=", tenant.companyId)
      .orderBy("id")
      .execute();
    const stranger = twilio.incoming({ from: "+33679999999", to: smsFrom, body: "STOP" });
    expect(await reply(stranger)).toBe(1);
    expect(await eventOf(stranger["MessageSid"]!)).toEqual({ followup_id: null, processed_at: expect.any(Date) });
    expect(
      await db
        .selectFrom("debts")
        .select(["id", "nb_answered"])
        .where("company_id", "=", tenant.companyId)
        .orderBy("id")
        .execute(),
    ).toEqual(before);
    expect(
      await db
        .selectFrom("channel_opt_outs")
        .select("debt_id")
        .where("company_id", "=", tenant.companyId)
        .where("debt_id", "in", [first.debtId, latest.debtId])
        .execute(),
    ).toEqual([]);
  });
});
