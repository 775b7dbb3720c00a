/**
 * One delivery attempt at a time, called directly (no runner), against a real
 * HTTP receiver: signatures checked with `standardwebhooks`, the retry
 * schedule read back from graphile-worker's jobs, 410, Retry-After,
 * redirects, timeouts and secret rotation.
 */
import { useTestDatabase } from "@dc/testing";
import { sql } from "kysely";
import { pino } from "pino";
import { WebhookVerificationError } from "standardwebhooks";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { deliverWebhook, type DeliveryDependencies, HEAD_DUE_RECHECK_MS } from "../src/webhooks/deliver.ts";
import { WEBHOOK_USER_AGENT } from "../src/webhooks/settings.ts";
import {
  answer,
  attemptsOf,
  deliveryJobs,
  deliveryOf,
  hang,
  insertCompany,
  insertEndpoint,
  movableClock,
  record,
  startReceiver,
  testSecretBox,
  verifyWith,
} from "./webhooks-fixtures.ts";

const { db } = await useTestDatabase();
const receiver = await startReceiver();
afterAll(() => receiver.close());

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

// Behind real time, so that standardwebhooks' 5-minute tolerance accepts every attempt of a test.
let clock = movableClock(new Date(Math.floor(Date.now() / 1000) * 1000 - 150 * SECOND));
beforeEach(() => {
  clock = movableClock(new Date(Math.floor(Date.now() / 1000) * 1000 - 150 * SECOND));
});

const deps = (overrides: Partial<DeliveryDependencies> = {}): DeliveryDependencies => ({
  db,
  clock,
  logger: pino({ level: "silent" }),
  secrets: testSecretBox,
  policy: { allowPrivateDestinations: true },
  timeoutMs: 2_000,
  random: () => 0.5,
  ...overrides,
});

/** A company, an endpoint on the receiver and one recorded event; returns the delivery and its job. */
const oneDelivery = async (options: { readonly ordered?: boolean; readonly url?: string } = {}) => {
  const companyId = await insertCompany(db);
  const endpoint = await insertEndpoint(db, companyId, options.url ?? receiver.url(`/hooks/${companyId}`), options);
  await record(db, [{ companyId, type: "debt.created", data: { id: "debt-1", amount: 12.5 }, occurredAt: clock.now() }]);
  const delivery = await db.selectFrom("webhook_deliveries").selectAll().where("company_id", "=", companyId).executeTakeFirstOrThrow();
  const event = await db.selectFrom("webhook_events").selectAll().where("id", "=", delivery.event_id).executeTakeFirstOrThrow();
  return { companyId, endpoint, delivery, event, job: { companyId, deliveryId: delivery.id } };
};

const requestsTo = (companyId: number) => receiver.requests.filter((request) => request.path === `/hooks/${companyId}`);
const jobOf = async (deliveryId: number) => (await deliveryJobs(db)).find((job) => job.key === `webhook_delivery:${deliveryId}`);

describe("a webhook attempt", () => {
  it("POSTs the event signed per Standard Webhooks v1 and records the success", async () => {
    const { companyId, endpoint, delivery, event, job } = await oneDelivery();
    receiver.next(answer(204));

    expect(await deliverWebhook(deps(), job)).toEqual({ outcome: "succeeded", statusCode: 204 });

    const [request] = requestsTo(companyId);
    expect(request).toBeDefined();
    expect(request!.method).toBe("POST");
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["user-agent"]).toBe(WEBHOOK_USER_AGENT);
    expect(request!.headers["webhook-id"]).toBe(event.public_id);
    expect(event.public_id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(request!.headers["webhook-timestamp"]).toBe(String(Math.floor(clock.now().getTime() / 1000)));
    expect(String(request!.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(verifyWith(endpoint.secret, request!)).toEqual({
      type: "debt.created",
      timestamp: clock.now().toISOString(),
      data: { id: "debt-1", amount: 12.5 },
    });
    expect(await deliveryOf(db, delivery.id)).toMatchObject({ status: "succeeded", attempt_count: 1, last_status_code: 204, next_attempt_at: null, completed_at: clock.now() });
    expect(await attemptsOf(db, delivery.id)).toMatchObject([{ status_code: 204, error: null, attempted_at: clock.now(), response_body_excerpt: null }]);
  });

  it("fails, is rescheduled with run_at at the backoff (5 s, then 5 min), then succeeds with the same webhook-id", async () => {
    const { companyId, endpoint, delivery, event, job } = await oneDelivery();
    receiver.next(answer(500, "boom"), answer(503, "later"), answer(200, "thanks"));
    const start = clock.now().getTime();

    expect(await deliverWebhook(deps(), job)).toEqual({ outcome: "retry_scheduled", statusCode: 500, nextAttemptAt: new Date(start + 5 * SECOND) });
    expect((await jobOf(delivery.id))?.run_at).toEqual(new Date(start + 5 * SECOND));
    expect(await deliveryOf(db, delivery.id)).toMatchObject({ status: "pending", retry_index: 1, next_attempt_at: new Date(start + 5 * SECOND) });

    clock.advance(5 * SECOND);
    expect((await deliverWebhook(deps(), job)).nextAttemptAt).toEqual(new Date(start + 5 * SECOND + 5 * MINUTE));
    expect((await jobOf(delivery.id))?.run_at).toEqual(new Date(start + 5 * SECOND + 5 * MINUTE));

    clock.advance(5 * MINUTE);
    expect(await deliverWebhook(deps(), job)).toEqual({ outcome: "succeeded", statusCode: 200 });

    const requests = requestsTo(companyId);
    expect(requests.map((request) => request.headers["webhook-id"])).toEqual([event.public_id, event.public_id, event.public_id]);
    expect(requests.map((request) => Number(request.headers["webhook-timestamp"]))).toEqual(
      [0, 5, 305].map((seconds) => start / 1000 + seconds),
    );
    for (const request of requests) expect(verifyWith(endpoint.secret, request)).toMatchObject({ type: "debt.created" });
    expect(new Set(requests.map((request) => request.body)).size).toBe(1);
    const attempts = await attemptsOf(db, delivery.id);
    expect(attempts.map((attempt) => [attempt.status_code, attempt.response_body_excerpt])).toEqual([
      [500, "boom"],
      [503, "later"],
      [200, "thanks"],
    ]);
    expect(await deliveryOf(db, delivery.id)).toMatchObject({ status: "succeeded", attempt_count: 3, retry_index: 2 });
  });

  it("applies +/-10 % jitter to the backoff", async () => {
    const { delivery, job } = await oneDelivery();
    receiver.next(answer(500));
    const start = clock.now().getTime();
    await deliverWebhook(deps({ random: () => 0 }), job);
    expect((await jobOf(delivery.id))?.run_at).toEqual(new Date(start + 4_500));
  });

  it("gives up after the last scheduled retry (11 attempts over about 3.5 days)", async () => {
    const { delivery, job } = await oneDelivery();
    await db.updateTable("webhook_deliveries").set({ retry_index: 10 }).where("id", "=", delivery.id).execute();
    receiver.next(answer(500));
    expect(await deliverWebhook(deps(), job)).toEqual({ outcome: "failed", statusCode: 500 });
    expect(await deliveryOf(db, delivery.id)).toMatchObject({ status: "failed", next_attempt_at: null, completed_at: clock.now() });
  });

  it("honours Retry-After in seconds and as an HTTP date, capped at 24 h", async () => {
    const { delivery, job } = await oneDelivery();
    const start = clock.now().getTime();
    receiver.next(answer(429, "", { "retry-after": "120" }));
    expect((await deliverWebhook(deps(), job)).nextAttemptAt).toEqual(new Date(start + 120 * SECOND));
    expect((await jobOf(delivery.id))?.run_at).toEqual(new Date(start + 120 * SECOND));

    const inTwoHours = new Date(start + 2 * HOUR);
    receiver.next(answer(503, "", { "retry-after": inTwoHours.toUTCString() }));
    expect((await deliverWebhook(deps(), job)).nextAttemptAt).toEqual(inTwoHours);

    receiver.next(answer(503, "", { "retry-after": String(30 * 24 * 3600) }));
    expect((await deliverWebhook(deps(), job)).nextAttemptAt).toEqual(new Date(start + 24 * HOUR));
  });

  it("disables the endpoint on 410 Gone, settles its other pending deliveries and removes their jobs", async () => {
    const { companyId, endpoint, delivery, job } = await oneDelivery();
    await record(db, [{ companyId, type: "debt.updated", data: {}, occurredAt: clock.now() }]);
    const other = await db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("company_id", "=", companyId)
      .where("id", "<>", delivery.id)
      .executeTakeFirstOrThrow();
    expect(await jobOf(other.id)).toBeDefined();
    receiver.next(answer(410, "gone"));

    expect(await deliverWebhook(deps(), job)).toEqual({ outcome: "endpoint_gone", statusCode: 410 });

    expect(await db.selectFrom("webhook_endpoints").selectAll().where("id", "=", endpoint.id).executeTakeFirstOrThrow()).toMatchObject({
      enabled: false,
      disabled_reason: "gone",
      disabled_at: clock.now(),
    });
    expect(await deliveryOf(db, delivery.id)).toMatchObject({ status: "failed", last_status_code: 410 });
    expect(await deliveryOf(db, other.id)).toMatchObject({ status: "disabled" });
    expect(await jobOf(other.id)).toBeUndefined();
    expect(await deliverWebhook(deps(), { companyId, deliveryId: other.id })).toEqual({ outcome: "skipped" });
    expect(await record(db, [{ companyId, type: "debt.updated", data: {}, occurredAt: clock.now() }])).toEqual({ events: 0, deliveries: 0 });
    expect(requestsTo(companyId)).toHaveLength(1);
  });

  it("does not follow a redirect: the 3xx is a failed attempt", async () => {
    const { companyId, delivery, job } = await oneDelivery();
    receiver.next(answer(302, "", { location: receiver.url("/elsewhere") }));

    expect((await deliverWebhook(deps(), job)).outcome).toBe("retry_scheduled");

    expect(receiver.requests.filter((request) => request.path === "/elsewhere")).toEqual([]);
    expect(requestsTo(companyId)).toHaveLength(1);
    expect(await attemptsOf(db, delivery.id)).toMatchObject([
      { status_code: 302, error: `redirect not followed (to ${receiver.url("/elsewhere")})` },
    ]);
  });

  it("abandons an attempt at its timeout and schedules a retry", async () => {
    const { delivery, job } = await oneDelivery();
    receiver.next(hang);

    const report = await deliverWebhook(deps({ timeoutMs: 300 }), job);

    expect(report).toMatchObject({ outcome: "retry_scheduled", statusCode: null });
    const [attempt] = await attemptsOf(db, delivery.id);
    expect(attempt).toMatchObject({ status_code: null, error: "timed out after 300 ms" });
    // Had the attempt not been abandoned, the hanging receiver would hold this test until vitest's own timeout.
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(250);
  });

  it("records a connection failure as an attempt without status", async () => {
    const { delivery, job } = await oneDelivery({ url: "http://127.0.0.1:1/closed" });
    expect(await deliverWebhook(deps(), job)).toMatchObject({ outcome: "retry_scheduled", statusCode: null });
    expect(await attemptsOf(db, delivery.id)).toMatchObject([{ status_code: null, error: "request failed: ECONNREFUSED" }]);
  });

  it("keeps at most 1 KiB of the response body", async () => {
    const { delivery, job } = await oneDelivery();
    receiver.next(answer(500, `${"é".repeat(600)}tail`));
    await deliverWebhook(deps(), job);
    const [attempt] = await attemptsOf(db, delivery.id);
    expect(Buffer.byteLength(attempt!.response_body_excerpt!)).toBeLessThanOrEqual(1024);
    expect(attempt!.response_body_excerpt).toBe("é".repeat(512));
  });

  it("signs with both secrets during a rotation's overlap, and with the new one only after", async () => {
    const { companyId, endpoint: old, delivery, job } = await oneDelivery();
    const rotated = await insertEndpoint(db, companyId, receiver.url("/unused"));
    const current = await db.selectFrom("webhook_endpoints").select("secret_ciphertext").where("id", "=", rotated.id).executeTakeFirstOrThrow();
    const previous = await db.selectFrom("webhook_endpoints").select("secret_ciphertext").where("id", "=", old.id).executeTakeFirstOrThrow();
    // The endpoint's secret rotated: `rotated.secret` is new, `old.secret` keeps signing for one more minute.
    await db
      .updateTable("webhook_endpoints")
      .set({
        secret_ciphertext: current.secret_ciphertext,
        previous_secret_ciphertext: previous.secret_ciphertext,
        previous_secret_expires_at: new Date(clock.now().getTime() + MINUTE),
      })
      .where("id", "=", old.id)
      .execute();
    receiver.next(answer(500), answer(200));

    await deliverWebhook(deps(), job);
    const during = requestsTo(companyId).at(-1)!;
    expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verifyWith(rotated.secret, during)).toMatchObject({ type: "debt.created" });
    expect(verifyWith(old.secret, during)).toMatchObject({ type: "debt.created" });

    clock.advance(MINUTE + SECOND);
    await db.updateTable("webhook_deliveries").set({ retry_index: 0 }).where("id", "=", delivery.id).execute();
    await deliverWebhook(deps(), job);
    const after = requestsTo(companyId).at(-1)!;
    expect(String(after.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(verifyWith(rotated.secret, after)).toMatchObject({ type: "debt.created" });
    expect(() => verifyWith(old.secret, after)).toThrow(WebhookVerificationError);
  });

  it("skips a delivery that is no longer pending or whose endpoint was deleted", async () => {
    const { companyId, endpoint, delivery, job } = await oneDelivery();
    await db.updateTable("webhook_deliveries").set({ status: "succeeded" }).where("id", "=", delivery.id).execute();
    expect(await deliverWebhook(deps(), job)).toEqual({ outcome: "skipped" });
    await db.deleteFrom("webhook_endpoints").where("id", "=", endpoint.id).execute();
    expect(await deliverWebhook(deps(), job)).toEqual({ outcome: "skipped" });
    expect(requestsTo(companyId)).toEqual([]);
  });
});

describe("an ordered endpoint", () => {
  it("rechecks a later event a second later, not a millisecond, while the head of the line is due but has not run", async () => {
    const companyId = await insertCompany(db);
    const endpoint = await insertEndpoint(db, companyId, receiver.url(`/hooks/${companyId}`), { ordered: true });
    const t0 = clock.now().getTime();
    await record(db, [
      { companyId, type: "debt.created", data: { n: 1 }, occurredAt: new Date(t0 - 2 * SECOND) },
      { companyId, type: "debt.updated", data: { n: 2 }, occurredAt: new Date(t0 - SECOND) },
    ]);
    const [head, later] = await db.selectFrom("webhook_deliveries").selectAll().where("company_id", "=", companyId).orderBy("event_occurred_at").execute();
    // The head's job gone (spent, say): nothing runs it until the worker's sweep.
    await sql`select graphile_worker.remove_job(${`webhook_delivery:${head!.id}`})`.execute(db);
    const waiting = await deliverWebhook(deps(), { companyId, deliveryId: later!.id });
    const recheckAt = new Date(t0 + HEAD_DUE_RECHECK_MS);
    expect(waiting).toEqual({ outcome: "waiting_for_earlier_event", nextAttemptAt: recheckAt });
    expect((await jobOf(later!.id))?.run_at).toEqual(recheckAt);
    expect(requestsTo(companyId)).toEqual([]);
    expect((await jobOf(later!.id))?.queue_name).toBe(`webhooks:endpoint:${endpoint.id}`);
  });

  it("holds a later event back until the earlier one is settled", async () => {
    const companyId = await insertCompany(db);
    const endpoint = await insertEndpoint(db, companyId, receiver.url(`/hooks/${companyId}`), { ordered: true });
    const t0 = clock.now().getTime();
    await record(db, [
      { companyId, type: "debt.updated", data: { n: 2 }, occurredAt: new Date(t0 + 2 * SECOND) },
      { companyId, type: "debt.created", data: { n: 1 }, occurredAt: new Date(t0 + SECOND) },
    ]);
    const deliveries = await db.selectFrom("webhook_deliveries").selectAll().where("company_id", "=", companyId).orderBy("event_occurred_at").execute();
    const [first, second] = deliveries;
    const jobs = await deliveryJobs(db);
    expect(jobs.filter((job) => job.queue_name === `webhooks:endpoint:${endpoint.id}`).map((job) => [job.key, job.run_at])).toEqual([
      [`webhook_delivery:${first!.id}`, new Date(t0 + SECOND)],
      [`webhook_delivery:${second!.id}`, new Date(t0 + 2 * SECOND)],
    ]);

    receiver.next(answer(500));
    clock.advance(3 * SECOND);
    const failed = await deliverWebhook(deps(), { companyId, deliveryId: first!.id });
    expect(failed.outcome).toBe("retry_scheduled");

    const waiting = await deliverWebhook(deps(), { companyId, deliveryId: second!.id });
    expect(waiting).toEqual({ outcome: "waiting_for_earlier_event", nextAttemptAt: new Date(failed.nextAttemptAt!.getTime() + 1) });
    expect((await jobOf(second!.id))?.run_at).toEqual(new Date(failed.nextAttemptAt!.getTime() + 1));
    expect(requestsTo(companyId)).toHaveLength(1);

    clock.advance(5 * SECOND);
    expect((await deliverWebhook(deps(), { companyId, deliveryId: first!.id })).outcome).toBe("succeeded");
    expect((await deliverWebhook(deps(), { companyId, deliveryId: second!.id })).outcome).toBe("succeeded");
    expect(requestsTo(companyId).map((request) => (JSON.parse(request.body) as { data: { n: number } }).data.n)).toEqual([1, 1, 2]);
  });
});
