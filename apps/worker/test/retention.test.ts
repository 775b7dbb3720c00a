/**
 * The retention purge (docs/decisions/0021, 0022) on a real database: what it
 * removes, what it keeps, the staged snapshots it expires, and its batches
 * and time budget.
 */
import { type Database, snapshotEventData } from "@dc/db";
import { holdTransaction, useTestDatabase } from "@dc/testing";
import { type Kysely, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { purgeRetained } from "../src/retention.ts";
import { insertCampaign, insertSnapshot } from "./snapshot-fixtures.ts";
import { insertCompany, insertEndpoint } from "./webhooks-fixtures.ts";

const { db } = await useTestDatabase();

// Far from the real date, so a query that used the database's now() instead of the cutoff would purge differently.
const now = new Date("2030-06-15T12:00:00.000Z");
const daysAgo = (days: number): Date => new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
const settings = { webhookEventDays: 30, snapshotBodyDays: 90, stagedUploadDays: 7 };
const none = { webhookEventDays: 0, snapshotBodyDays: 0, stagedUploadDays: 0 };

const insertEvent = async (companyId: number, createdAt: Date): Promise<number> =>
  (
    await sql<{ id: number }>`
      insert into webhook_events (company_id, public_id, type, payload, occurred_at, created_at)
      values (${companyId}, ${`evt_${Math.random().toString(16).slice(2).padEnd(32, "0")}`}, 'debt.updated', '{}',
        ${createdAt.toISOString()}::timestamptz, ${createdAt.toISOString()}::timestamptz)
      returning id`.execute(db)
  ).rows[0]!.id;

const insertDelivery = async (
  companyId: number,
  endpointId: number,
  eventId: number,
  status: "pending" | "succeeded" | "failed" | "disabled",
  attempts: number,
): Promise<number> => {
  const id = (
    await sql<{ id: number }>`
      insert into webhook_deliveries (company_id, endpoint_id, event_id, event_occurred_at, status, attempt_count)
      values (${companyId}, ${endpointId}, ${eventId}, now(), ${status}, ${attempts}) returning id`.execute(db)
  ).rows[0]!.id;
  for (let i = 0; i < attempts; i++) {
    await sql`insert into webhook_delivery_attempts (company_id, delivery_id, attempted_at, status_code, duration_ms)
      values (${companyId}, ${id}, now(), 500, 3)`.execute(db);
  }
  return id;
};

const idsOf = async (table: "webhook_events" | "webhook_deliveries", companyId: number): Promise<Array<number>> =>
  (
    await sql<{ id: number }>`select id from ${sql.table(table)} where company_id = ${companyId} order by id`.execute(
      db,
    )
  ).rows.map((row) => Number(row.id));

const attemptCount = async (companyId: number): Promise<number> =>
  (
    await sql<{
      n: number;
    }>`select count(*)::int4 as n from webhook_delivery_attempts where company_id = ${companyId}`.execute(db)
  ).rows[0]!.n;

/** Two companies, each with one endpoint, so a purge can be seen to work across tenants. */
const tenant = async (name: string) => {
  const companyId = await insertCompany(db, name);
  const endpoint = await insertEndpoint(db, companyId, "https://hooks.example.com/in");
  const other = await insertEndpoint(db, companyId, "https://hooks.example.com/other");
  return { companyId, endpointId: endpoint.id, otherEndpointId: other.id };
};

/** Runs the purge with one kind of retention only, so tests do not see each other's rows go. */
const purgeWebhooks = (db: Kysely<Database>, options: Parameters<typeof purgeRetained>[3] = {}) =>
  purgeRetained(db, now, { ...none, webhookEventDays: settings.webhookEventDays }, options);
const purgeSnapshots = (db: Kysely<Database>, at = now) =>
  purgeRetained(db, at, { ...none, snapshotBodyDays: settings.snapshotBodyDays });
const expireUploads = (db: Kysely<Database>, options: Parameters<typeof purgeRetained>[3] = {}) =>
  purgeRetained(db, now, { ...none, stagedUploadDays: settings.stagedUploadDays }, options);

describe("purgeRetained: webhook events", () => {
  it("deletes events past the retention with their settled deliveries and attempts, and keeps the rest", async () => {
    const a = await tenant("Retention A");
    const b = await tenant("Retention B");
    const oldSucceeded = await insertEvent(a.companyId, daysAgo(45));
    await insertDelivery(a.companyId, a.endpointId, oldSucceeded, "succeeded", 2);
    const oldFailed = await insertEvent(a.companyId, daysAgo(31));
    await insertDelivery(a.companyId, a.endpointId, oldFailed, "failed", 3);
    await insertDelivery(a.companyId, a.otherEndpointId, oldFailed, "disabled", 0);
    await insertEvent(a.companyId, daysAgo(60)); // recorded when no endpoint subscribed
    // Still waiting for an attempt on one endpoint: the event and both its deliveries stay.
    const oldWaiting = await insertEvent(a.companyId, daysAgo(40));
    const waitingPending = await insertDelivery(a.companyId, a.endpointId, oldWaiting, "pending", 1);
    const waitingSucceeded = await insertDelivery(a.companyId, a.otherEndpointId, oldWaiting, "succeeded", 1);
    const recent = await insertEvent(a.companyId, daysAgo(29));
    const recentDelivery = await insertDelivery(a.companyId, a.endpointId, recent, "failed", 1);
    const atCutoff = await insertEvent(a.companyId, daysAgo(30));
    const bOld = await insertEvent(b.companyId, daysAgo(90));
    await insertDelivery(b.companyId, b.endpointId, bOld, "succeeded", 1);
    const bRecent = await insertEvent(b.companyId, daysAgo(1));
    const bRecentDelivery = await insertDelivery(b.companyId, b.endpointId, bRecent, "succeeded", 1);

    const counts = await purgeWebhooks(db);

    expect(counts).toEqual({
      webhook_events: 4,
      webhook_deliveries: 4,
      webhook_delivery_attempts: 6,
      staged_snapshots_expired: 0,
      staged_snapshot_events: 0,
      snapshot_chunk_bodies: 0,
      snapshot_body_bytes: 0,
      unfinished: false,
    });
    expect(await idsOf("webhook_events", a.companyId)).toEqual([oldWaiting, recent, atCutoff]);
    expect(await idsOf("webhook_deliveries", a.companyId)).toEqual([waitingPending, waitingSucceeded, recentDelivery]);
    expect(await attemptCount(a.companyId)).toBe(3);
    expect(await idsOf("webhook_events", b.companyId)).toEqual([bRecent]);
    expect(await idsOf("webhook_deliveries", b.companyId)).toEqual([bRecentDelivery]);
    expect(await attemptCount(b.companyId)).toBe(1);

    // Once the waiting delivery settles, the next run takes the event too.
    await sql`update webhook_deliveries set status = 'failed' where id = ${waitingPending}`.execute(db);
    expect((await purgeWebhooks(db)).webhook_events).toBe(1);
    expect(await idsOf("webhook_events", a.companyId)).toEqual([recent, atCutoff]);
    expect(await attemptCount(a.companyId)).toBe(1);
  });

  it("keeps everything when the retention is 0", async () => {
    const t = await tenant("Kept for good");
    const event = await insertEvent(t.companyId, daysAgo(3_000));
    const delivery = await insertDelivery(t.companyId, t.endpointId, event, "succeeded", 1);
    const counts = await purgeRetained(db, now, none);
    expect(counts.webhook_events + counts.webhook_deliveries + counts.snapshot_chunk_bodies).toBe(0);
    expect(await idsOf("webhook_events", t.companyId)).toEqual([event]);
    expect(await idsOf("webhook_deliveries", t.companyId)).toEqual([delivery]);
  });

  it("goes on batch after batch until a batch comes back short", async () => {
    const t = await tenant("Batches");
    for (let i = 0; i < 7; i++) {
      await insertDelivery(t.companyId, t.endpointId, await insertEvent(t.companyId, daysAgo(31 + i)), "succeeded", 1);
    }
    const counts = await purgeWebhooks(db, { webhookBatch: 3 });
    expect(counts.webhook_events).toBeGreaterThanOrEqual(7);
    expect(counts.unfinished).toBe(false);
    expect(await idsOf("webhook_events", t.companyId)).toEqual([]);
    expect(await attemptCount(t.companyId)).toBe(0);
  });

  it("starts no batch once its time budget is spent, and says the run is unfinished", async () => {
    const t = await tenant("Budget");
    const event = await insertEvent(t.companyId, daysAgo(100));
    const counts = await purgeWebhooks(db, { budgetMs: 0 });
    expect(counts.unfinished).toBe(true);
    expect(counts.webhook_events).toBe(0);
    expect(await idsOf("webhook_events", t.companyId)).toEqual([event]);
  });

  it("skips an event another transaction holds, and takes it on the next run", async () => {
    const t = await tenant("Held");
    const event = await insertEvent(t.companyId, daysAgo(50));
    await insertDelivery(t.companyId, t.endpointId, event, "failed", 1);
    // What a replay naming one endpoint does: it reads the event `for key share` and keeps it for its transaction.
    const replay = await holdTransaction(db, (trx) =>
      sql`select id from webhook_events where id = ${event} for key share`.execute(trx),
    );
    await purgeWebhooks(db);
    expect(await idsOf("webhook_events", t.companyId)).toEqual([event]);
    await replay.release();
    await purgeWebhooks(db);
    expect(await idsOf("webhook_events", t.companyId)).toEqual([]);
  });
});

describe("purgeRetained: snapshot bodies", () => {
  const settle = (id: number, status: "completed" | "failed", completedAt: Date) =>
    sql`update snapshots set status = ${status}, completed_at = ${completedAt.toISOString()}::timestamptz
      where id = ${id}`.execute(db);

  const chunksOf = (snapshotId: number) =>
    db
      .selectFrom("snapshot_chunks")
      .select([
        "chunk_index",
        "body",
        "internal_ids",
        "invoice_references",
        "body_purged_at",
        "body_sha256",
        "row_count",
      ])
      .where("snapshot_id", "=", snapshotId)
      .orderBy("chunk_index")
      .execute();

  it("clears the bodies of snapshots settled before the cutoff, keeping each chunk's digest and row count", async () => {
    const campaign = await insertCampaign(db);
    const rows = (prefix: string) => [
      { internal_id: `${prefix}-1`, remaining_amount: 10, currency: "EUR" },
      { invoice_reference: `${prefix}-INV`, remaining_amount: 5, currency: "EUR" },
    ];
    const oldCompleted = await insertSnapshot(db, campaign, [rows("a"), rows("b")]);
    const oldFailed = await insertSnapshot(db, campaign, [rows("c")]);
    const recentCompleted = await insertSnapshot(db, campaign, [rows("d")]);
    const oldPending = await insertSnapshot(db, campaign, [rows("e")]);
    await settle(oldCompleted, "completed", daysAgo(91));
    await settle(oldFailed, "failed", daysAgo(400));
    await settle(recentCompleted, "completed", daysAgo(89));
    await sql`update snapshots set created_at = ${daysAgo(200).toISOString()}::timestamptz where id = ${oldPending}`.execute(
      db,
    );
    const before = await chunksOf(oldCompleted);
    const bodyBytes = [...before, ...(await chunksOf(oldFailed))].reduce(
      (sum, chunk) => sum + Buffer.byteLength(chunk.body ?? ""),
      0,
    );

    const counts = await purgeSnapshots(db);

    expect(counts).toMatchObject({ snapshot_chunk_bodies: 3, snapshot_body_bytes: bodyBytes, webhook_events: 0 });
    const after = await chunksOf(oldCompleted);
    expect(after).toEqual(
      before.map((chunk) => ({
        ...chunk,
        body: null,
        internal_ids: null,
        invoice_references: null,
        body_purged_at: now,
      })),
    );
    expect((await chunksOf(oldFailed)).map((chunk) => chunk.body)).toEqual([null]);
    for (const kept of [recentCompleted, oldPending]) {
      const [chunk] = await chunksOf(kept);
      expect(chunk?.body_purged_at).toBeNull();
      expect(JSON.parse(chunk?.body ?? "null")).toHaveProperty("rows");
    }
    expect((await purgeSnapshots(db)).snapshot_chunk_bodies).toBe(0);
  });

  it("refuses a purged chunk that keeps part of its rows, or a live one without them", async () => {
    const campaign = await insertCampaign(db);
    const id = await insertSnapshot(db, campaign, [[{ internal_id: "x", remaining_amount: 1, currency: "EUR" }]]);
    await expect(
      sql`update snapshot_chunks set body = null where snapshot_id = ${id}`.execute(db),
    ).rejects.toMatchObject({ code: "23514" });
    await expect(
      sql`update snapshot_chunks set body_purged_at = now(), body = null where snapshot_id = ${id}`.execute(db),
    ).rejects.toMatchObject({ code: "23514" });
  });
});

describe("purgeRetained: staged snapshots left uploading", () => {
  /** A staged snapshot of `campaign` still `uploading`, its last chunk received `idleDays` before `now`. */
  const uploading = async (campaign: Awaited<ReturnType<typeof insertCampaign>>, idleDays: number): Promise<number> => {
    const id = await insertSnapshot(db, campaign, [
      [{ internal_id: `u-${idleDays}-a`, remaining_amount: 10, currency: "EUR" }],
      [{ internal_id: `u-${idleDays}-b`, remaining_amount: 5, currency: "EUR" }],
    ]);
    await sql`update snapshots set status = 'uploading', finalized_at = null, expected_row_count = 5,
        updated_at = ${daysAgo(idleDays).toISOString()}::timestamptz
      where id = ${id}`.execute(db);
    return id;
  };

  const stateOf = (id: number) =>
    db
      .selectFrom("snapshots")
      .select(["status", "core_applied", "failure", "completed_at", "updated_at", "finalized_at"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();

  const failedEvents = async (companyId: number) =>
    (
      await sql<{ payload: string }>`select payload from webhook_events
        where company_id = ${companyId} and type = 'snapshot.failed' order by id`.execute(db)
    ).rows.map((row) => JSON.parse(row.payload) as { type: string; data: Record<string, unknown> });

  it("fails the uploads idle past the expiry with `snapshot_expired`, records `snapshot.failed`, and keeps the rest", async () => {
    const subscribed = await insertCampaign(db);
    await insertEndpoint(db, subscribed.companyId, "https://hooks.example.com/in", { eventTypes: ["snapshot.failed"] });
    const quiet = await insertCampaign(db);
    const idle = await uploading(subscribed, 8);
    const idleQuiet = await uploading(quiet, 30);
    const recent = await uploading(subscribed, 6);
    const finalized = await insertSnapshot(db, subscribed, [[{ internal_id: "p", remaining_amount: 1, currency: "EUR" }]]);
    await sql`update snapshots set updated_at = ${daysAgo(60).toISOString()}::timestamptz where id = ${finalized}`.execute(db);
    const chunksBefore = await db.selectFrom("snapshot_chunks").selectAll().where("snapshot_id", "=", idle).execute();

    const counts = await expireUploads(db);

    expect(counts).toMatchObject({ staged_snapshots_expired: 2, staged_snapshot_events: 1, unfinished: false });
    const failure = {
      code: "snapshot_expired",
      message: "Staged snapshot not finalized within 7 days of its start or last chunk",
      errors: [],
      error_count: 0,
      errors_omitted: 0,
    };
    for (const id of [idle, idleQuiet]) {
      expect(await stateOf(id)).toEqual({
        status: "failed",
        core_applied: false,
        failure,
        completed_at: now,
        updated_at: now,
        finalized_at: null,
      });
    }
    expect((await stateOf(recent)).status).toBe("uploading");
    expect((await stateOf(finalized)).status).toBe("pending");
    // Nothing of the upload is touched: its chunks stay as they were, bodies included.
    expect(await db.selectFrom("snapshot_chunks").selectAll().where("snapshot_id", "=", idle).execute()).toEqual(
      chunksBefore,
    );
    // The subscribed company hears of its snapshot with the status resource's acknowledgement; the other records nothing.
    const events = await failedEvents(subscribed.companyId);
    expect(events.map((event) => event.type)).toEqual(["snapshot.failed"]);
    expect(events[0]?.data).toEqual(await snapshotEventData(db, subscribed.companyId, idle));
    expect(events[0]?.data).toMatchObject({ status: "failed", failure });
    expect(await failedEvents(quiet.companyId)).toEqual([]);

    expect((await expireUploads(db)).staged_snapshots_expired).toBe(0);
  });

  it("leaves an expired upload's bodies to the body retention, counted from its expiry", async () => {
    const campaign = await insertCampaign(db);
    const id = await uploading(campaign, 10);
    await expireUploads(db);
    const bodies = async () =>
      (await db.selectFrom("snapshot_chunks").select("body").where("snapshot_id", "=", id).execute()).map(
        (chunk) => chunk.body !== null,
      );
    const daysAfter = (days: number) => new Date(now.getTime() + days * 24 * 60 * 60 * 1000);
    await purgeSnapshots(db, daysAfter(89));
    expect(await bodies()).toEqual([true, true]);
    await purgeSnapshots(db, daysAfter(91));
    expect(await bodies()).toEqual([false, false]);
  });

  it("goes on batch after batch, and keeps every upload waiting when the expiry is 0", async () => {
    const campaign = await insertCampaign(db);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await uploading(campaign, 20 + i));
    expect((await purgeRetained(db, now, none)).staged_snapshots_expired).toBe(0);
    expect((await stateOf(ids[0]!)).status).toBe("uploading");

    const counts = await expireUploads(db, { stagedBatch: 2 });
    expect(counts.staged_snapshots_expired).toBeGreaterThanOrEqual(5);
    for (const id of ids) expect((await stateOf(id)).status).toBe("failed");
  });

  it("skips an upload another transaction holds, and takes it on the next run unless it moved on", async () => {
    const campaign = await insertCampaign(db);
    const held = await uploading(campaign, 9);
    const movedOn = await uploading(campaign, 9);
    // What a chunk upload does: it holds the snapshot's row until it commits its counters.
    const chunk = await holdTransaction(db, (trx) =>
      sql`update snapshots set updated_at = ${now.toISOString()}::timestamptz where id = ${movedOn}`.execute(trx),
    );
    const finalize = await holdTransaction(db, (trx) =>
      sql`select id from snapshots where id = ${held} for no key update`.execute(trx),
    );
    await expireUploads(db);
    expect((await stateOf(held)).status).toBe("uploading");
    expect((await stateOf(movedOn)).status).toBe("uploading");
    await chunk.release();
    await finalize.release();
    await expireUploads(db);
    expect((await stateOf(held)).status).toBe("failed");
    expect((await stateOf(movedOn)).status).toBe("uploading");
  });
});
