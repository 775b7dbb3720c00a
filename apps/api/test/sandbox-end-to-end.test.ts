/**
 * Issue 26's end-to-end test, through the real api and a real worker
 * process (`node apps/worker/src/main.ts`) on one database: a sandbox
 * company's debts on its default timeline (e-mail at day 0, SMS at day 3,
 * call at day 7, e-mail at day 14, Monday to Friday 09:00-19:00), the clock
 * advanced day by day over 15 days with POST /sandbox/clock/advance. Each
 * step runs at its due instant inside the window, with the outcome the
 * recipient's magic value chose (docs/sandbox.md); counters, credits and
 * webhooks follow decisions 0152, 0603 and 0604; a debt paid by a snapshot at
 * day 5 is never contacted again. Everything is read through the api.
 */
import { describe, expect, it } from "vitest";
import { createTenant } from "../src/admin/tenants.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";
import { accountRow, rowsBody } from "./support/snapshots.ts";
import {
  eventually,
  expectWebhookPayload,
  startReceiver,
  startWorkerProcess,
  verifyWith,
} from "./support/webhooks-support.ts";

const t = await startTestApi();
const api = jsonApi(t.request);
const worker = startWorkerProcess(t.databaseUrl);
const receiver = await startReceiver();
const { ids } = t.api.services;

/** Monday 23 November 2026, 09:30 in Paris (UTC+1 until March): every step below falls on a weekday at 09:30. */
const START = new Date("2026-11-23T08:30:00Z");
const DAY_MS = 86_400_000;
const at = (day: number) => new Date(START.getTime() + day * DAY_MS);
const wire = (date: Date) => date.toISOString().replace(".000Z", "+00:00");

const tenant = await createTenant(t.db, ids, "End To End Sandbox", { sandbox: true, now: START });
const token = await t.token(tenant);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;

const read = async (path: string, template = path): Promise<Json> => {
  const response = await t.get(path, token);
  expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
  return expectContract<Json>(response, "get", template);
};

const ADVANCE = "/external-api/v1/sandbox/clock/advance";
const SNAPSHOT = "/external-api/v1/campaigns/{apiReference}/snapshots/{snapshotReference}";
const snapshotPath = (reference: string) =>
  `/external-api/v1/campaigns/${tenant.campaign_api_reference}/snapshots/${reference}`;

/** Submits a one-request snapshot and waits (`Prefer: wait`) until the worker applied it. */
const applySnapshot = async (reference: string, rows: ReadonlyArray<Record<string, unknown>>) => {
  const submitted = await api.put(snapshotPath(reference), token, rowsBody(rows));
  expect(submitted.status, await submitted.clone().text()).toBe(202);
  for (;;) {
    const status = await t.request(snapshotPath(reference), {
      headers: { authorization: `Bearer ${token}`, prefer: "wait=30" },
    });
    const body = await expectContract<Json>(status, "get", SNAPSHOT);
    if (body["data"]["status"] === "completed") return body["data"];
    expect(body["data"]["status"], JSON.stringify(body)).not.toBe("failed");
  }
};

const createDebt = async (fields: Json) => {
  const response = await api.post("/external-api/v1/debts", token, {
    lastname: "Doe",
    amount: 120.5,
    currency: "EUR",
    country: "FR",
    timeline_id: tenant.timeline_id,
    ...fields,
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await expectContract<Json>(response, "post", "/external-api/v1/debts"))["data"]["id"] as string;
};

/** What the sandbox provider kept for a debt, oldest first: channel, recipient, sent time, outcome. */
const messagesOf = async (debtId: string) =>
  (await read(`/external-api/v1/sandbox/messages?debt_id=${debtId}&limit=100`, "/external-api/v1/sandbox/messages"))[
    "data"
  ]
    .map((message: Json) => [message["channel"], message["recipient"], message["sent_at"], message["outcome"]])
    .reverse();

const followupsOf = async (debtId: string) =>
  (
    (await read(`/external-api/v1/followups?debt_id=${debtId}&limit=100`, "/external-api/v1/followups"))[
      "data"
    ] as Json[]
  ).sort((a, b) => String(a["scheduled_at"]).localeCompare(String(b["scheduled_at"])));

const debtOf = async (debtId: string) =>
  (await read(`/external-api/v1/debts/${debtId}`, "/external-api/v1/debts/{id}"))["data"] as Json;

const timelineOf = async (debtId: string) =>
  (await read(`/external-api/v1/debts/${debtId}/timeline`, "/external-api/v1/debts/{id}/timeline"))["data"] as Json;

/** The local time in Paris of an instant: ISO weekday (1 = Monday) and HH:MM. */
const parisTime = (instant: string) => {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: "Europe/Paris",
    weekday: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(new Date(instant));
  const part = (type: string) => parts.find((entry) => entry.type === type)!.value;
  return {
    weekday: ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].indexOf(part("weekday")) + 1,
    time: `${part("hour")}:${part("minute")}`,
  };
};

describe("a sandbox company's default timeline, run over 15 days through the api", { timeout: 600_000 }, () => {
  it("executes days 0, 3, 7 and 14 in the window with the magic outcomes, and never contacts a debt paid at day 5", async () => {
    await worker.ready();
    const endpoint = (
      await expectContract<Json>(
        await api.post("/external-api/v1/webhooks/endpoints", token, {
          url: receiver.url("/e2e"),
          event_types: ["followup.updated", "debt.updated"],
        }),
        "post",
        "/external-api/v1/webhooks/endpoints",
      )
    )["data"] as Json;

    // The default timeline, as the tenant got it.
    const timelines = await read("/external-api/v1/timelines");
    expect(timelines["data"]).toEqual([
      expect.objectContaining({
        id: tenant.timeline_id,
        is_default: true,
        scheduling: { timezone: null, allowed_weekdays: [1, 2, 3, 4, 5], window_start: "09:00", window_end: "19:00" },
      }),
    ]);
    expect(
      timelines["data"][0]["timepoints"].map((point: Json) => [point.day_offset, point.actions[0].channel]),
    ).toEqual([
      [0, "email"],
      [3, "sms"],
      [7, "ai_call"],
      [14, "email"],
    ]);

    // Two debts created on it through the api, one through a snapshot of its campaign.
    const answered = await createDebt({
      firstname: "Ann",
      email: "ann@example.com",
      phone: "+33612340004",
      internal_id: "E2E-A",
    });
    const unanswered = await createDebt({
      firstname: "Bob",
      email: "bob+sent@example.com",
      phone: "+33612340002",
      internal_id: "E2E-B",
    });
    const row = accountRow(1, {
      internal_id: "E2E-C",
      firstname: "Cyd",
      email: "cyd@example.com",
      phone: "+33612340006",
    });
    await applySnapshot("e2e-day-0", [row]);
    const snapshotDebts = await read("/external-api/v1/debts?search=E2E-C", "/external-api/v1/debts");
    const paidLater = snapshotDebts["data"].find((debt: Json) => debt["internal_id"] === "E2E-C")["id"] as string;
    expect((await debtOf(paidLater))["timeline_id"]).toBe(tenant.timeline_id);
    for (const debtId of [answered, unanswered, paidLater]) {
      expect(await timelineOf(debtId)).toMatchObject({
        state: "active",
        started_at: wire(START),
        next_action_at: wire(START),
      });
    }

    for (let day = 1; day <= 15; day++) {
      const response = await api.post(ADVANCE, token, { to: at(day).toISOString() });
      expect(response.status, `day ${day}: ${await response.clone().text()}`).toBe(200);
      expect(await expectContract(response, "post", ADVANCE)).toEqual({
        error: false,
        message: "Sandbox clock advanced successfully",
        data: { now: wire(at(day)) },
      });
      if (day === 5) {
        // Paid off in full: the snapshot's transaction stops its timeline.
        await applySnapshot("e2e-day-5", [{ ...row, remaining_amount: 0 }]);
        expect(await debtOf(paidLater)).toMatchObject({ status: "status.default.paid", remaining_amount: 0 });
      }
    }

    // The messages: each step at its due instant (09:30 in Paris on a weekday), outcomes by magic value.
    expect(await messagesOf(answered)).toEqual([
      ["email", "ann@example.com", wire(at(0)), "delivered"],
      ["sms", "+33612340004", wire(at(3)), "delivered"],
      ["ai_call", "+33612340004", wire(at(7)), "deal_not_found"],
      ["email", "ann@example.com", wire(at(14)), "delivered"],
    ]);
    expect(await messagesOf(unanswered)).toEqual([
      ["email", "bob+sent@example.com", wire(at(0)), "sent"],
      ["sms", "+33612340002", wire(at(3)), "delivered"],
      ["ai_call", "+33612340002", wire(at(7)), "no_answer"],
      ["email", "bob+sent@example.com", wire(at(14)), "sent"],
    ]);
    expect(await messagesOf(paidLater)).toEqual([
      ["email", "cyd@example.com", wire(at(0)), "delivered"],
      ["sms", "+33612340006", wire(at(3)), "sent"],
    ]);
    const all = (await read("/external-api/v1/sandbox/messages?limit=100", "/external-api/v1/sandbox/messages"))[
      "data"
    ] as Json[];
    expect(all).toHaveLength(10);
    for (const message of all) {
      const local = parisTime(message["sent_at"]);
      expect(local.weekday, message["sent_at"]).toBeLessThanOrEqual(5);
      expect(local.time >= "09:00" && local.time < "19:00", message["sent_at"]).toBe(true);
      expect(message["body"].length, message["channel"]).toBeGreaterThan(0);
    }
    expect(
      all.filter((message) => message["channel"] === "email").every((message) => message["subject"] !== null),
    ).toBe(true);

    // The followups the engine wrote, as the followup list shows them.
    const followups = await followupsOf(answered);
    expect(
      followups.map((followup) => [followup["type"], followup["status"], followup["is_retry"], followup["call_date"]]),
    ).toEqual([
      ["email", "delivered", false, wire(at(0))],
      ["sms", "delivered", false, wire(at(3))],
      ["call", "deal_not_found", false, wire(at(7))],
      ["email", "delivered", false, wire(at(14))],
    ]);
    expect((await followupsOf(paidLater)).map((followup) => followup["status"])).toEqual([
      "delivered",
      "sent",
      "cancelled",
    ]);

    // Counters (0604): every executed action is a reminder; only a conversation is an answer.
    expect(await debtOf(answered)).toMatchObject({
      nb_reminders: 4,
      nb_answered: 1,
      status: "status.default.in_progress",
    });
    expect(await debtOf(unanswered)).toMatchObject({
      nb_reminders: 4,
      nb_answered: 0,
      status: "status.default.in_progress",
    });
    expect(await debtOf(paidLater)).toMatchObject({ nb_reminders: 2, nb_answered: 0, status: "status.default.paid" });

    // Credits (0152): SMS 1 each (3), the 120 s refusal 2, the unanswered call 1; e-mails are free.
    const credits = await read("/external-api/v1/company/credits");
    expect(credits["data"]["current_credits"]).toBe(100 - 3 - 2 - 1);

    // The timelines as the api reads them.
    expect(await timelineOf(answered)).toMatchObject({ state: "completed", next_action_at: null, now: wire(at(15)) });
    expect((await timelineOf(answered))["steps"].map((step: Json) => step["status"])).toEqual([
      "done",
      "done",
      "done",
      "done",
    ]);
    const stopped = await timelineOf(paidLater);
    expect(stopped).toMatchObject({ state: "stopped", reason: "paid", next_action_at: null });
    expect(stopped["steps"].map((step: Json) => step["status"])).toEqual(["done", "done", "cancelled", "upcoming"]);

    // Webhooks (0603): one followup.updated per executed action, and a debt.updated for each change of counters.
    const executed = [
      ...(await followupsOf(answered)),
      ...(await followupsOf(unanswered)),
      ...(await followupsOf(paidLater)),
    ].filter((followup) => followup["status"] !== "cancelled");
    const delivered = await eventually("the webhook deliveries", () => {
      const events = receiver.requests.map((request) => verifyWith(endpoint["secret"], request) as Json);
      const updates = events.filter((event) => event["type"] === "followup.updated");
      return updates.length >= executed.length ? events : undefined;
    });
    const updates = delivered.filter((event) => event["type"] === "followup.updated");
    for (const event of delivered) expectWebhookPayload(event, event["type"]);
    expect(updates.map((event) => event["data"]["id"]).sort()).toEqual(
      executed.map((followup) => followup["id"]).sort(),
    );
    const lastDebtUpdate = delivered
      .filter((event) => event["type"] === "debt.updated" && event["data"]["id"] === answered)
      .at(-1);
    expect(lastDebtUpdate?.["data"]).toMatchObject({ nb_reminders: 4, nb_answered: 1 });

    // Nothing more is due: a further week changes nothing for the paid debt.
    const later = await api.post(ADVANCE, token, { to: at(22).toISOString() });
    expect(later.status).toBe(200);
    expect(await messagesOf(paidLater)).toHaveLength(2);
  });
});
