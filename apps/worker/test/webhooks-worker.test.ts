/**
 * Webhooks through the real worker (graphile-worker runner) and a real HTTP
 * receiver: an event committed with its change is delivered even when no
 * worker was running at the time (a crash between change and delivery loses
 * nothing), a rolled-back change sends nothing, and an ordered endpoint
 * receives one event at a time in event-time order, a failing one holding
 * the later ones back until its retry succeeds.
 */
import { makeIds, recordEvent } from "@dc/db";
import { useTestDatabase } from "@dc/testing";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { createWorkerMetrics } from "../src/observability/metrics.ts";
import { type RunningWorker, startWorker } from "../src/worker.ts";
import { sample } from "./metrics-text.ts";
import { DEVELOPMENT_PUBLIC_BASE_URL } from "../src/config.ts";
import { waitFor } from "./wait-for.ts";
import {
  type Answer,
  answer,
  deliveryJobs,
  insertCompany,
  insertEndpoint,
  record,
  startReceiver,
  TEST_MASTER_KEY,
  verifyWith,
} from "./webhooks-fixtures.ts";

const { db, url } = await useTestDatabase();
const receiver = await startReceiver();
// Ten seconds behind real time: a retry scheduled 5 s after an attempt is already due, so nothing sleeps.
const clock = { now: () => new Date(Date.now() - 10_000) };
let worker: RunningWorker | undefined;
const metrics = createWorkerMetrics(pino({ level: "silent" }));
afterAll(async () => {
  await worker?.stop();
  await receiver.close();
});

const start = async () => {
  worker = await startWorker({
    connectionString: url,
    concurrency: 4,
    clock,
    logger: pino({ level: "silent" }),
    ids: makeIds(TEST_MASTER_KEY),
    links: { origin: DEVELOPMENT_PUBLIC_BASE_URL, secret: TEST_MASTER_KEY },
    metrics,
    webhooks: { idEncryptionKey: TEST_MASTER_KEY, allowPrivateDestinations: true, random: () => 0.5 },
  });
};

const insertCreditor = async (companyId: number) =>
  (await db.insertInto("creditors").values({ company_id: companyId, name: "Acme Receivables" }).returning("id").executeTakeFirstOrThrow()).id;

const requestsTo = (companyId: number) => receiver.requests.filter((request) => request.path === `/hooks/${companyId}`);

describe("the worker", () => {
  it("delivers an event committed while no worker ran: nothing is lost between change and delivery", async () => {
    const companyId = await insertCompany(db);
    const creditorId = await insertCreditor(companyId);
    const endpoint = await insertEndpoint(db, companyId, receiver.url(`/hooks/${companyId}`));
    const debtId = await db.transaction().execute(async (trx) => {
      const debt = await trx
        .insertInto("debts")
        .values({ company_id: companyId, creditor_id: creditorId, amount_minor: 1_000, balance_minor: 1_000, currency: "EUR", amount_text: "10.00" })
        .returning("id")
        .executeTakeFirstOrThrow();
      await recordEvent(trx, { companyId, type: "debt.created", data: { id: `debt-${debt.id}` }, occurredAt: clock.now() });
      return debt.id;
    });
    // The "crash": the change and its event are committed, and no worker has run.
    const [delivery] = await db.selectFrom("webhook_deliveries").selectAll().where("company_id", "=", companyId).execute();
    expect(delivery).toMatchObject({ status: "pending", attempt_count: 0 });
    expect((await deliveryJobs(db)).map((job) => job.key)).toContain(`webhook_delivery:${delivery!.id}`);

    await start();

    const [request] = await waitFor("the delivery", () => (requestsTo(companyId).length > 0 ? requestsTo(companyId) : undefined));
    expect(verifyWith(endpoint.secret, request!)).toMatchObject({ type: "debt.created", data: { id: `debt-${debtId}` } });
    const delivered = await waitFor("the delivery to be recorded", async () => {
      const row = await db.selectFrom("webhook_deliveries").selectAll().where("id", "=", delivery!.id).executeTakeFirstOrThrow();
      return row.status === "succeeded" ? row : undefined;
    });
    expect(delivered).toMatchObject({ attempt_count: 1, last_status_code: 200 });
    await waitFor("the job to complete", async () =>
      (await deliveryJobs(db)).some((job) => job.key === `webhook_delivery:${delivery!.id}`) ? undefined : true,
    );
    const text = await metrics.registry.metrics();
    expect(sample(text, 'webhook_deliveries_total{outcome="succeeded"}')).toBe(1);
    expect(sample(text, 'worker_jobs_total{task="deliver_webhook",outcome="success"}')).toBe(1);
  });

  it("sends nothing for a rolled-back change", async () => {
    const companyId = await insertCompany(db);
    const creditorId = await insertCreditor(companyId);
    await insertEndpoint(db, companyId, receiver.url(`/hooks/${companyId}`));
    const rolledBack = db.transaction().execute(async (trx) => {
      await trx
        .insertInto("debts")
        .values({ company_id: companyId, creditor_id: creditorId, amount_minor: 1_000, balance_minor: 1_000, currency: "EUR", amount_text: "10.00" })
        .execute();
      await recordEvent(trx, { companyId, type: "debt.created", data: {}, occurredAt: clock.now() });
      throw new Error("the change fails after recording its event");
    });
    await expect(rolledBack).rejects.toThrow("the change fails after recording its event");

    expect(await db.selectFrom("debts").select("id").where("company_id", "=", companyId).execute()).toEqual([]);
    expect(await db.selectFrom("webhook_events").select("id").where("company_id", "=", companyId).execute()).toEqual([]);
    expect(await db.selectFrom("webhook_deliveries").select("id").where("company_id", "=", companyId).execute()).toEqual([]);
    expect((await deliveryJobs(db)).filter((job) => job.payload.company_id === companyId)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(requestsTo(companyId)).toEqual([]);
  });

  it("delivers an ordered endpoint's events one at a time in event-time order, a failure holding the later ones back", async () => {
    const companyId = await insertCompany(db);
    const endpoint = await insertEndpoint(db, companyId, receiver.url(`/hooks/${companyId}`), { ordered: true });
    let inFlight = 0;
    let maxInFlight = 0;
    const slow =
      (status: number): Answer =>
      (_request, response) => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        setTimeout(() => {
          inFlight -= 1;
          answer(status)(_request, response);
        }, 40);
      };
    receiver.next(slow(500));
    receiver.setDefault(slow(200));
    const base = clock.now().getTime() - 60_000;
    // Recorded out of event-time order, in one transaction.
    await record(db, [
      { companyId, type: "debt.updated", data: { n: 3 }, occurredAt: new Date(base + 3_000) },
      { companyId, type: "debt.created", data: { n: 1 }, occurredAt: new Date(base + 1_000) },
      { companyId, type: "debt.updated", data: { n: 2 }, occurredAt: new Date(base + 2_000) },
    ]);

    await waitFor("four requests", () => (requestsTo(companyId).length >= 4 ? true : undefined));
    await waitFor("every delivery to succeed", async () => {
      const rows = await db.selectFrom("webhook_deliveries").select("status").where("company_id", "=", companyId).execute();
      return rows.every((row) => row.status === "succeeded") ? true : undefined;
    });

    const received = requestsTo(companyId);
    expect(received.map((request) => (JSON.parse(request.body) as { data: { n: number } }).data.n)).toEqual([1, 1, 2, 3]);
    for (const request of received) verifyWith(endpoint.secret, request);
    expect(maxInFlight).toBe(1);
  });
});
