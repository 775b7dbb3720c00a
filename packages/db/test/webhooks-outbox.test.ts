/**
 * The webhook outbox and its companions: which events are stored, which
 * deliveries and jobs they get (one statement, however many events), replays
 * and disabling, and the sealing of signing secrets.
 */
import { type Kysely, sql } from "kysely";
import { describe, expect, it } from "vitest";
import {
  disablePendingDeliveries,
  findSpentDeliveryJobs,
  recordEvent,
  recordEvents,
  replayEvent,
  webhookBody,
  replayFailedDeliveries,
  subscribedWebhookEventTypes,
  type WebhookEventType,
} from "../src/index.ts";
import { formatWebhookSecret, generateWebhookSecret, makeWebhookSecretBox } from "@dc/crypto";
import { webhookEventTypes } from "../src/queries/webhooks/event-types.ts";
import type { Database } from "../src/schema.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { db } = await useTestDatabase();
const box = makeWebhookSecretBox(new TextEncoder().encode("outbox-tests-master-secret-of-32-bytes-at-least"));
const now = new Date("2026-11-21T10:00:00.000Z");

const company = async () => (await db.insertInto("companies").values({ name: "Acme" }).returning("id").executeTakeFirstOrThrow()).id;

const endpoint = async (
  companyId: number,
  options: { readonly eventTypes?: ReadonlyArray<WebhookEventType>; readonly enabled?: boolean; readonly ordered?: boolean } = {},
) =>
  (
    await db
      .insertInto("webhook_endpoints")
      .values({
        company_id: companyId,
        url: "https://hooks.example.com/x",
        event_types: [...(options.eventTypes ?? [])],
        enabled: options.enabled ?? true,
        disabled_reason: options.enabled === false ? "manual" : null,
        ordered: options.ordered ?? false,
        secret_ciphertext: box.seal(companyId, generateWebhookSecret().key),
      })
      .returning("id")
      .executeTakeFirstOrThrow()
  ).id;

const jobs = async (trx: Kysely<Database> = db) =>
  (
    await sql<{ key: string; queue_name: string | null; run_at: Date; payload: { company_id: number; delivery_id: number } }>`
      select j.key, q.queue_name, j.run_at, j.payload
      from graphile_worker._private_jobs j
      join graphile_worker._private_tasks t on t.id = j.task_id
      left join graphile_worker._private_job_queues q on q.id = j.job_queue_id
      where t.identifier = 'deliver_webhook' order by j.id`.execute(trx)
  ).rows;

const deliveriesOf = (companyId: number) =>
  db.selectFrom("webhook_deliveries").selectAll().where("company_id", "=", companyId).orderBy("id").execute();

describe("recordEvents", () => {
  it("stores an event with a pending delivery and a keyed job for each enabled, subscribed endpoint of the company", async () => {
    const companyId = await company();
    const all = await endpoint(companyId);
    const debtsOnly = await endpoint(companyId, { eventTypes: ["debt.created", "debt.updated"] });
    await endpoint(companyId, { eventTypes: ["followup.created"] });
    await endpoint(companyId, { enabled: false });
    await endpoint(await company());

    const recorded = await db.transaction().execute((trx) =>
      recordEvent(trx, { companyId, type: "debt.created", data: { id: "d1", amount: 1.5 }, occurredAt: now }),
    );

    expect(recorded).toEqual({ events: 1, deliveries: 2 });
    const [event] = await db.selectFrom("webhook_events").selectAll().where("company_id", "=", companyId).execute();
    expect(event).toMatchObject({ type: "debt.created", occurred_at: now });
    expect(JSON.parse(event!.payload)).toEqual({ type: "debt.created", timestamp: "2026-11-21T10:00:00.000Z", data: { id: "d1", amount: 1.5 } });
    const deliveries = await deliveriesOf(companyId);
    expect(deliveries.map((delivery) => [delivery.endpoint_id, delivery.status, delivery.event_occurred_at])).toEqual([
      [all, "pending", now],
      [debtsOnly, "pending", now],
    ]);
    const added = (await jobs()).filter((job) => job.payload.company_id === companyId);
    expect(added.map((job) => [job.key, job.queue_name, job.payload])).toEqual(
      deliveries.map((delivery) => [`webhook_delivery:${delivery.id}`, null, { company_id: companyId, delivery_id: delivery.id }]),
    );
  });

  it("stores no event that no endpoint subscribes to (docs/decisions/0452)", async () => {
    const companyId = await company();
    await endpoint(companyId, { eventTypes: ["snapshot.completed"] });
    expect(await recordEvent(db, { companyId, type: "debt.deleted", data: {}, occurredAt: now })).toEqual({ events: 0, deliveries: 0 });
    expect(await db.selectFrom("webhook_events").select("id").where("company_id", "=", companyId).execute()).toEqual([]);
  });

  it("records thousands of events in one call, and puts an ordered endpoint's jobs in its queue at event time", async () => {
    const companyId = await company();
    await endpoint(companyId);
    const ordered = await endpoint(companyId, { ordered: true });
    const events = Array.from({ length: 3_000 }, (_, index) => ({
      companyId,
      type: "debt.created" as const,
      data: { index },
      occurredAt: new Date(now.getTime() + index),
    }));

    expect(await db.transaction().execute((trx) => recordEvents(trx, events))).toEqual({ events: 3_000, deliveries: 6_000 });

    const queued = (await jobs()).filter((job) => job.queue_name === `webhooks:endpoint:${ordered}`);
    expect(queued).toHaveLength(3_000);
    expect(queued[0]?.run_at).toEqual(now);
    expect(queued[2_999]?.run_at).toEqual(new Date(now.getTime() + 2_999));
  });

  it("never schedules an ordered job in the future: run_at is the event time or now", async () => {
    const companyId = await company();
    const ordered = await endpoint(companyId, { ordered: true });
    const future = new Date(Date.now() + 24 * 3600 * 1000);
    await recordEvent(db, { companyId, type: "debt.created", data: {}, occurredAt: future });
    const [job] = (await jobs()).filter((row) => row.queue_name === `webhooks:endpoint:${ordered}`);
    expect(job!.run_at.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("stores each event's body exactly as webhookBody writes it, in event order, with time-ordered public ids, for a batch of thousands", async () => {
    const companyId = await company();
    await endpoint(companyId);
    const texts = ['plain', 'quote " and \\ backslash', "line\nbreak\ttab", "é ü 漢字 🙂", "\u0001 control", "lone \ud800 surrogate"];
    const events = Array.from({ length: 2_400 }, (_, i) => ({
      companyId,
      type: "debt.updated" as const,
      data: { id: `d${i}`, lastname: texts[i % texts.length], amount: i / 4, nested: { list: [i, null, true] } },
      occurredAt: new Date(now.getTime() + i),
    }));
    expect(await recordEvents(db, events)).toEqual({ events: 2_400, deliveries: 2_400 });
    const stored = await db
      .selectFrom("webhook_events")
      .select(["payload", "occurred_at", "public_id"])
      .where("company_id", "=", companyId)
      .orderBy("id")
      .execute();
    expect(stored.map((row) => row.payload)).toEqual(events.map(webhookBody));
    // Public ids are time-ordered (decision 0365): they sort as the events were recorded.
    const publicIds = stored.map((row) => row.public_id);
    expect(publicIds.every((id) => /^evt_[0-9a-f]{12}7[0-9a-f]{19}$/.test(id))).toBe(true);
    expect([...publicIds].sort()).toEqual(publicIds);
    expect(stored.map((row) => row.occurred_at.getTime())).toEqual(events.map((event) => event.occurredAt.getTime()));
  });

  it("tells which types a company's enabled endpoints subscribe to, so callers can skip unwanted payloads", async () => {
    const companyId = await company();
    expect(await subscribedWebhookEventTypes(db, companyId)).toEqual(new Set());
    await endpoint(companyId, { eventTypes: ["debt.created", "payment.recorded"] });
    await endpoint(companyId, { enabled: false });
    expect(await subscribedWebhookEventTypes(db, companyId)).toEqual(new Set(["debt.created", "payment.recorded"]));
    await endpoint(companyId);
    expect(await subscribedWebhookEventTypes(db, companyId)).toEqual(new Set(webhookEventTypes));
  });

  it("refuses an unknown event type and writes nothing", async () => {
    const companyId = await company();
    await endpoint(companyId);
    await expect(
      recordEvents(db, [{ companyId, type: "debt.create" as WebhookEventType, data: {}, occurredAt: now }]),
    ).rejects.toThrow("not a webhook event type: debt.create");
    expect(await db.selectFrom("webhook_events").select("id").where("company_id", "=", companyId).execute()).toEqual([]);
  });
});

describe("replays and disabling", () => {
  it("replay an event with the same event id, to its endpoints or to one endpoint created later", async () => {
    const companyId = await company();
    const first = await endpoint(companyId);
    await recordEvent(db, { companyId, type: "debt.created", data: {}, occurredAt: now });
    const [delivery] = await deliveriesOf(companyId);
    const event = await db.selectFrom("webhook_events").select("id").where("company_id", "=", companyId).executeTakeFirstOrThrow();

    expect(await replayEvent(db, { companyId, eventId: event.id, now })).toBe(0);
    await db.updateTable("webhook_deliveries").set({ status: "failed", retry_index: 10, completed_at: now }).where("id", "=", delivery!.id).execute();
    expect(await replayEvent(db, { companyId, eventId: event.id, now })).toBe(1);
    expect(await db.selectFrom("webhook_deliveries").selectAll().where("id", "=", delivery!.id).executeTakeFirstOrThrow()).toMatchObject({
      status: "pending",
      retry_index: 0,
      completed_at: null,
      event_id: event.id,
    });

    const later = await endpoint(companyId);
    expect(await replayEvent(db, { companyId, eventId: event.id, endpointId: later, now })).toBe(1);
    expect((await deliveriesOf(companyId)).map((row) => [row.endpoint_id, row.event_id, row.status])).toEqual([
      [first, event.id, "pending"],
      [later, event.id, "pending"],
    ]);
    expect((await jobs()).filter((job) => job.payload.company_id === companyId)).toHaveLength(2);
  });

  it("replay an endpoint's failed and disabled deliveries only", async () => {
    const companyId = await company();
    const id = await endpoint(companyId);
    await recordEvents(db, ["debt.created", "debt.updated", "debt.settled"].map((type) => ({ companyId, type: type as WebhookEventType, data: {}, occurredAt: now })));
    const [a, b, c] = await deliveriesOf(companyId);
    await db.updateTable("webhook_deliveries").set({ status: "failed" }).where("id", "=", a!.id).execute();
    await db.updateTable("webhook_deliveries").set({ status: "disabled" }).where("id", "=", b!.id).execute();
    await db.updateTable("webhook_deliveries").set({ status: "succeeded" }).where("id", "=", c!.id).execute();
    expect(await replayFailedDeliveries(db, { companyId, endpointId: id, now })).toBe(2);
    expect((await deliveriesOf(companyId)).map((row) => row.status)).toEqual(["pending", "pending", "succeeded"]);
  });

  it("disabling settles pending deliveries and removes their jobs", async () => {
    const companyId = await company();
    const id = await endpoint(companyId);
    await recordEvents(db, [1, 2].map(() => ({ companyId, type: "debt.created" as const, data: {}, occurredAt: now })));
    expect(await disablePendingDeliveries(db, { companyId, endpointId: id, now })).toBe(2);
    expect((await deliveriesOf(companyId)).map((row) => row.status)).toEqual(["disabled", "disabled"]);
    expect((await jobs()).filter((job) => job.payload.company_id === companyId)).toEqual([]);
  });
});

describe("findSpentDeliveryJobs", () => {
  it("finds a spent job's delivery by the company its payload names and the id its key names, never another company's", async () => {
    const companyId = await company();
    await endpoint(companyId);
    await db.transaction().execute((trx) => recordEvent(trx, { companyId, type: "debt.created", data: {}, occurredAt: now }));
    const [delivery] = await deliveriesOf(companyId);
    const key = `webhook_delivery:${delivery!.id}`;
    await sql`update graphile_worker._private_jobs set attempts = max_attempts where key = ${key}`.execute(db);
    const spentOf = async () => (await findSpentDeliveryJobs(db)).filter((job) => job.deliveryId === delivery!.id);

    const [spent] = await spentOf();
    expect(spent).toMatchObject({ companyId, deliveryId: delivery!.id });

    // A job whose payload names another company does not reach this company's delivery.
    const other = await company();
    await sql`update graphile_worker._private_jobs
      set payload = json_build_object('company_id', ${other}::int8, 'delivery_id', ${delivery!.id}::int8)
      where key = ${key}`.execute(db);
    expect(await spentOf()).toEqual([]);
  });
});

describe("signing secrets", () => {
  it("are whsec_ + base64 of 32 random bytes, sealed with AES-256-GCM bound to the company", () => {
    const { key, secret } = generateWebhookSecret();
    expect(key.byteLength).toBe(32);
    expect(secret).toBe(formatWebhookSecret(key));
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toEqual(key);
    const sealed = box.seal(7, key);
    expect(sealed.includes(key)).toBe(false);
    expect(box.open(7, sealed)).toEqual(key);
    expect(() => box.open(8, sealed)).toThrow();
    expect(() => makeWebhookSecretBox(new TextEncoder().encode("another-master-secret-of-32-bytes-at-least!")).open(7, sealed)).toThrow();
    expect(box.seal(7, key)).not.toEqual(sealed);
  });
});
