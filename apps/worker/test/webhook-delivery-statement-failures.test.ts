/**
 * Unexpected failures, swept over every statement of a webhook delivery: one
 * event recorded for a subscribed endpoint is delivered by the real worker
 * (`startWorker`, its `dc-worker` pool) to a real HTTP receiver, once for
 * each statement the `deliver_webhook` job runs, with that statement made to
 * fail (`armFault` of @dc/testing), as a failure nobody can classify and
 * as the database going away (SQLSTATE 57P01).
 *
 * Delivery is at least once (docs/decisions/0452, 0455): the attempt is made
 * outside any transaction and recorded afterwards in one transaction, and
 * "an HTTP attempt that succeeded but whose record failed to commit is
 * attempted again". Precisely, whatever the statement:
 *
 * - the failed run writes nothing (the delivery's row and attempts, every
 *   other row of the company, every other job stay as they were) and throws,
 *   so graphile-worker keeps the job for a retry: the delivery is not lost;
 * - the receiver got no request from it when the statement failed before the
 *   HTTP exchange (the reads that precede it), and exactly one otherwise;
 * - the retry, untouched, makes the attempt again and leaves what an
 *   untouched run leaves: the delivery's status, attempt count, retry index,
 *   next attempt time and next job, and one attempt record per attempt;
 * - the recorded attempts are exactly the requests the receiver got, in
 *   order and with the status it answered, but for the failed run's own
 *   request: the one duplicate the decisions accept. It carries the same
 *   `webhook-id` (the event's id), the same body bytes and, the worker's
 *   clock being fixed, the same timestamp and signature as the untouched
 *   attempt, valid under the endpoint's secret, so the receiver can drop it
 *   by `webhook-id`;
 * - a delivery is `succeeded` only once the receiver answered 2xx.
 *
 * On the job's last graphile-worker attempt (5) a failure leaves the job
 * spent: graphile-worker never runs it again. The worker's periodic sweep
 * (here, a new worker's start-up sweep) then counts it as one failed attempt,
 * recorded without a status and with an error that names no internals, and
 * the retry schedule goes on, so the delivery is still delivered, or ends
 * `failed` (and replayable) once the schedule is used up.
 *
 * Once the job runs fewer statements than the fault waits for, it completes
 * untouched, which proves each failure was the fault's doing. Each position
 * gets a fresh company seeded the same way: the endpoint under test, another
 * endpoint with a pending delivery of another event, both jobs held back
 * until the fault is armed.
 */
import { makeIds, recordEvents, replayFailedDeliveries } from "@dc/db";
import {
  armFault,
  companyDigest,
  disarmFault,
  type FaultOutcome,
  unexpectedError,
  rowsDigest,
  useTestDatabase,
} from "@dc/testing";
import { sql } from "kysely";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { WEBHOOK_USER_AGENT } from "../src/webhooks/settings.ts";
import { type Failure, quietWorkerPerTest, unavailable, unexpected, workerConnections } from "./fault-sweep-worker.ts";
import { captureLogger } from "./log-capture.ts";
import { DEVELOPMENT_PUBLIC_BASE_URL } from "../src/config.ts";
import { waitFor } from "./wait-for.ts";
import {
  answer,
  attemptsOf,
  deliveryOf,
  insertCompany,
  insertEndpoint,
  type ReceivedRequest,
  type SeededEndpoint,
  startReceiver,
  TEST_MASTER_KEY,
  verifyWith,
} from "./webhooks-fixtures.ts";

const { db, url } = await useTestDatabase();
const { logger, records } = captureLogger();

const SECOND = 1000;
/**
 * The worker's clock, stopped two minutes ahead of real time: a retry it
 * schedules (5 s after an attempt) is not due before the test runs it, and
 * every attempt carries the same `webhook-timestamp`, which standardwebhooks'
 * five-minute tolerance accepts while the file runs.
 */
const now = new Date(Math.floor(Date.now() / SECOND) * SECOND + 120 * SECOND);
const timestamp = String(now.getTime() / SECOND);

/** A delivery job cannot run more statements than this; reaching it means the sweep is broken. */
const MAX_STATEMENTS = 40;

/** What the receiver answers, by path (200 unless set), and every request it answered, with the status. */
const statusByPath = new Map<string, number>();
const answered: Array<{ readonly path: string; readonly status: number }> = [];
const receiver = await startReceiver();
receiver.setDefault((request, response) => {
  const path = request.url ?? "";
  const status = statusByPath.get(path) ?? 200;
  answered.push({ path, status });
  answer(status, status < 300 ? "ok" : "unavailable")(request, response);
});
afterAll(() => receiver.close());

/**
 * The real worker, with webhook delivery (no jitter). Jobs start only when
 * announced (add_job, the test's NOTIFY), never by a poll; its periodic
 * sweep (every 60 s) never comes within a test.
 */
const workers = quietWorkerPerTest(
  {
    connectionString: url,
    clock: fixedClock(now),
    logger,
    ids: makeIds(TEST_MASTER_KEY),
    links: { origin: DEVELOPMENT_PUBLIC_BASE_URL, secret: TEST_MASTER_KEY },
    webhooks: { idEncryptionKey: TEST_MASTER_KEY, allowPrivateDestinations: true, random: () => 0.5, timeoutMs: 5_000 },
  },
  db,
);

interface Arranged {
  readonly companyId: number;
  readonly endpoint: SeededEndpoint;
  /** Where the receiver gets the endpoint's requests. */
  readonly path: string;
  readonly deliveryId: number;
  /** The event's public id (`webhook-id`) and the body recorded with it. */
  readonly publicId: string;
  readonly body: string;
  /** The delivery's job, held back. */
  readonly jobId: string;
  /** The delivery's row as recorded. */
  readonly recorded: Awaited<ReturnType<typeof deliveryOf>>;
}

/**
 * A company with the endpoint under test (subscribed to `debt.created`) and
 * another endpoint (subscribed to `payment.recorded`), one event for each,
 * recorded in one transaction with both jobs held back a day. With
 * `ordered`, the endpoint under test is ordered and has an earlier event
 * too, whose delivery failed once and waits for its retry at now + 5 s: the
 * delivery under test must wait behind it.
 */
const arrange = async ({ ordered = false } = {}): Promise<Arranged> => {
  const companyId = await insertCompany(db);
  const path = `/hooks/${companyId}`;
  const endpoint = await insertEndpoint(db, companyId, receiver.url(path), { ordered, eventTypes: ["debt.created"] });
  await insertEndpoint(db, companyId, receiver.url(`/other/${companyId}`), { eventTypes: ["payment.recorded"] });
  const data = { id: "debt-1", amount: 12.5, debtor: { name: "Zoë Ångström", note: "ü ✓ \u2028" } };
  await db.transaction().execute(async (trx) => {
    await recordEvents(trx, [
      { companyId, type: "payment.recorded", data: { id: "payment-1", amount: 3 }, occurredAt: now },
      ...(ordered
        ? [
            {
              companyId,
              type: "debt.created" as const,
              data: { id: "debt-0" },
              occurredAt: new Date(now.getTime() - 60 * SECOND),
            },
          ]
        : []),
      { companyId, type: "debt.created", data, occurredAt: now },
    ]);
    await sql`update graphile_worker._private_jobs set run_at = now() + interval '1 day'
      where payload->>'company_id' = ${String(companyId)}`.execute(trx);
  });
  const rows = await db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_events as ev", "ev.id", "d.event_id")
    .select(["d.id", "ev.public_id", "ev.payload", "ev.occurred_at"])
    .where("d.endpoint_id", "=", endpoint.id)
    .orderBy("ev.occurred_at")
    .execute();
  const delivery = rows.at(-1)!;
  if (ordered) {
    // The head of the line: attempted once, failed, its retry due at now + 5 s.
    await db
      .updateTable("webhook_deliveries")
      .set({
        attempt_count: 1,
        retry_index: 1,
        last_status_code: 503,
        next_attempt_at: new Date(now.getTime() + 5 * SECOND),
      })
      .where("id", "=", rows[0]!.id)
      .execute();
  }
  const job = await jobByKey(delivery.id);
  if (job === undefined) throw new Error("the delivery has no job");
  return {
    companyId,
    endpoint,
    path,
    deliveryId: delivery.id,
    publicId: delivery.public_id,
    body: delivery.payload,
    jobId: job.id,
    recorded: await deliveryOf(db, delivery.id),
  };
};

interface JobState {
  readonly id: string;
  readonly queue_name: string | null;
  readonly run_at: Date;
  readonly attempts: number;
  readonly max_attempts: number;
  readonly last_error: string | null;
  readonly locked_at: Date | null;
}

const jobs = (where: ReturnType<typeof sql>) =>
  sql<JobState>`
    select id::text, queue_name, run_at, attempts, max_attempts, last_error, locked_at
    from graphile_worker.jobs where ${where}`.execute(db);

const jobByKey = async (deliveryId: number): Promise<JobState | undefined> =>
  (await jobs(sql`key = ${`webhook_delivery:${deliveryId}`}`)).rows[0];

const jobById = async (jobId: string): Promise<JobState | undefined> => (await jobs(sql`id = ${jobId}::int8`)).rows[0];

/** Resolves when the worker is done with job `jobId`: gone (completed) or unlocked after `attempts` attempts. */
const attemptEnded = (jobId: string, attempts: number) =>
  waitFor(`attempt ${attempts} of job ${jobId} to end`, async () => {
    const job = await jobById(jobId);
    if (job === undefined) return { completed: true as const };
    return job.locked_at === null && job.attempts >= attempts ? { completed: false as const, job } : undefined;
  });

/** Runs job `jobId` now (as its delay ending would) and waits for that attempt to end. */
const runNow = async (jobId: string, attempts: number) => {
  await sql`update graphile_worker._private_jobs set run_at = now() where id = ${jobId}::int8`.execute(db);
  await sql`select pg_notify('jobs:insert', '{"count":1}')`.execute(db);
  return attemptEnded(jobId, attempts);
};

/** Holds a failed job back from any retry but the test's own. */
const holdBack = async (jobId: string): Promise<void> => {
  await sql`update graphile_worker._private_jobs set run_at = now() + interval '1 day' where id = ${jobId}::int8`.execute(
    db,
  );
};

/**
 * Every row the company holds but the delivery under test and its attempts,
 * as a digest per table (found in the catalog: every table with a
 * `company_id`), and every job of the company but the delivery's.
 */
const otherState = async ({ companyId, deliveryId }: Arranged): Promise<Record<string, string>> => ({
  ...(await companyDigest(db, companyId, {
    webhook_deliveries: sql`r.id = ${deliveryId}`,
    webhook_delivery_attempts: sql`r.delivery_id = ${deliveryId}`,
  })),
  "other jobs": await rowsDigest(
    db,
    sql`graphile_worker._private_jobs as r
      where r.payload->>'company_id' = ${String(companyId)} and r.payload->>'delivery_id' <> ${String(deliveryId)}`,
  ),
});

/**
 * The delivery succeeded on its second attempt, the first recorded with
 * `firstStatus` (null: no answer): two attempts, `succeeded` with the retry
 * counted, and no job left.
 */
const expectDeliveredOnRetry = async (
  arranged: Arranged,
  firstStatus: number | null,
  where: string,
): Promise<void> => {
  const { deliveryId } = arranged;
  expect(
    (await attemptsOf(db, deliveryId)).map((attempt) => attempt.status_code),
    where,
  ).toEqual([firstStatus, 200]);
  expect(await deliveryOf(db, deliveryId), where).toEqual({
    ...arranged.recorded,
    status: "succeeded",
    attempt_count: 2,
    retry_index: 1,
    last_status_code: 200,
    completed_at: now,
    updated_at: now,
  });
  expect(await jobByKey(deliveryId), `${where}: a job is left behind`).toBeUndefined();
};

/** What the receiver got for the endpoint under test: each request, with the status it answered. */
const arrivals = ({ path }: Arranged) => {
  const requests = receiver.requests.filter((request) => request.path === path);
  const statuses = answered.filter((entry) => entry.path === path).map((entry) => entry.status);
  expect(statuses).toHaveLength(requests.length);
  return requests.map((request, i) => ({ request, status: statuses[i]! }));
};

/** The request an untouched attempt sends, signed independently with standardwebhooks. */
const expectedRequest = ({ endpoint, publicId, body, path }: Arranged) => ({
  method: "POST",
  path,
  body,
  headers: {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    "user-agent": WEBHOOK_USER_AGENT,
    "webhook-id": publicId,
    "webhook-timestamp": timestamp,
    "webhook-signature": new Webhook(endpoint.secret).sign(publicId, now, body),
  },
});

const expectSentAsUntouched = (arranged: Arranged, requests: ReadonlyArray<ReceivedRequest>, where: string) => {
  const expected = expectedRequest(arranged);
  for (const request of requests) {
    expect({ method: request.method, path: request.path, body: request.body }, where).toEqual({
      method: expected.method,
      path: expected.path,
      body: expected.body,
    });
    expect(request.headers, where).toMatchObject(expected.headers);
    expect(verifyWith(arranged.endpoint.secret, request), where).toEqual(JSON.parse(arranged.body));
  }
  // Byte for byte the same request each time, but for the connection's own headers.
  expect(new Set(requests.map((request) => JSON.stringify(request.headers))).size, where).toBeLessThanOrEqual(1);
};

/** What the test makes the job face, and what its untouched run leaves. */
type Scenario = "answered 2xx" | "answered 503" | "ordered, behind a failed earlier event";

/**
 * What one untouched run of the delivery's job (`jobId`) leaves, in
 * `scenario`, after `before` sent requests; checks it and returns the
 * delivery's next job, if any.
 */
const expectUntouchedRun = async (
  arranged: Arranged,
  scenario: Scenario,
  ended: { readonly completed: boolean },
  sentBefore: number,
  where: string,
): Promise<JobState | undefined> => {
  const { deliveryId } = arranged;
  const sent = arrivals(arranged);
  const attempts = await attemptsOf(db, deliveryId);
  const next = await jobByKey(deliveryId);
  expect(ended.completed, `${where}: the job did not complete`).toBe(true);
  if (scenario === "ordered, behind a failed earlier event") {
    // Never sent before the earlier event: moved to just after the earlier one's retry, in the endpoint's queue.
    const runAt = new Date(now.getTime() + 5 * SECOND + 1);
    expect(sent, where).toHaveLength(0);
    expect(attempts, where).toEqual([]);
    expect(await deliveryOf(db, deliveryId), where).toEqual({
      ...arranged.recorded,
      next_attempt_at: runAt,
      updated_at: now,
    });
    expect(next, where).toMatchObject({
      run_at: runAt,
      attempts: 0,
      queue_name: expect.stringMatching(/^webhooks:endpoint:/),
    });
    return next;
  }
  const status = scenario === "answered 2xx" ? 200 : 503;
  expect(
    sent.map((arrival) => arrival.status),
    where,
  ).toEqual([...Array<number>(sentBefore).fill(status), status]);
  expectSentAsUntouched(
    arranged,
    sent.map((arrival) => arrival.request),
    where,
  );
  expect(
    attempts.map(({ status_code, attempted_at, error, response_body_excerpt }) => ({
      status_code,
      attempted_at,
      error,
      response_body_excerpt,
    })),
    where,
  ).toEqual([
    {
      status_code: status,
      attempted_at: now,
      error: null,
      response_body_excerpt: status === 200 ? "ok" : "unavailable",
    },
  ]);
  if (scenario === "answered 2xx") {
    expect(await deliveryOf(db, deliveryId), where).toEqual({
      ...arranged.recorded,
      status: "succeeded",
      attempt_count: 1,
      last_status_code: 200,
      completed_at: now,
      updated_at: now,
    });
    expect(next, `${where}: a job is left behind`).toBeUndefined();
    return undefined;
  }
  const nextAttemptAt = new Date(now.getTime() + 5 * SECOND);
  expect(await deliveryOf(db, deliveryId), where).toEqual({
    ...arranged.recorded,
    attempt_count: 1,
    retry_index: 1,
    last_status_code: 503,
    next_attempt_at: nextAttemptAt,
    updated_at: now,
  });
  expect(next, where).toMatchObject({ run_at: nextAttemptAt, attempts: 0, last_error: null, queue_name: null });
  // The scheduled retry, answered 2xx, delivers it: the next attempt is counted on.
  statusByPath.set(arranged.path, 200);
  expect((await runNow(next!.id, 1)).completed, `${where}: the scheduled retry did not complete`).toBe(true);
  const all = arrivals(arranged);
  expect(
    all.map((arrival) => arrival.status),
    where,
  ).toEqual([...sent.map((arrival) => arrival.status), 200]);
  expectSentAsUntouched(
    arranged,
    all.map((arrival) => arrival.request),
    where,
  );
  await expectDeliveredOnRetry(arranged, 503, where);
  return undefined;
};

/** The statements one sweep made fail, in order, and the positions whose failed run sent nothing. */
interface Swept {
  readonly statements: Array<string>;
  readonly unsent: Array<number>;
}

/**
 * Delivers a fresh copy of the event with statement `failAt` of its job
 * made to fail, then lets graphile-worker's retry run untouched, and checks
 * what the header promises. Returns what the fault saw.
 */
const runWithFault = async (
  failAt: number,
  failure: Failure,
  scenario: Scenario,
  swept: Swept,
): Promise<FaultOutcome> => {
  const ordered = scenario === "ordered, behind a failed earlier event";
  const arranged = await arrange({ ordered });
  const { deliveryId, jobId } = arranged;
  statusByPath.set(arranged.path, scenario === "answered 503" ? 503 : 200);
  const before = await otherState(arranged);
  armFault(failAt, failure.error, workerConnections);
  const first = await runNow(jobId, 1);
  const outcome = await disarmFault();
  const where = `${failure.kind} at statement ${failAt} (${outcome.failed?.replace(/\s+/g, " ").slice(0, 100)})`;
  if (outcome.failed === undefined) {
    // The job ran fewer statements than the fault waited for: untouched, it completed at once.
    await expectUntouchedRun(arranged, scenario, first, 0, where);
    expect(await otherState(arranged), `${where}: something else was written`).toEqual(before);
    return outcome;
  }
  swept.statements.push(outcome.failed);

  // Failed: nothing written, the job left for graphile-worker to retry (the delivery is not lost).
  expect(first.completed, `${where}: the job completed`).toBe(false);
  const job = first.completed ? undefined : first.job;
  expect(job, where).toMatchObject({ id: jobId, attempts: 1, max_attempts: 5, locked_at: null });
  expect(job?.run_at.getTime(), `${where}: the retry is not delayed`).toBeGreaterThan(Date.now());
  expect(job?.last_error, where).toContain(failure.message);
  await holdBack(jobId);
  expect(await deliveryOf(db, deliveryId), `${where}: the delivery changed`).toEqual(arranged.recorded);
  expect(await attemptsOf(db, deliveryId), `${where}: an attempt was recorded`).toEqual([]);
  expect(await otherState(arranged), `${where}: something else was written`).toEqual(before);
  const sent = arrivals(arranged);
  expect(sent.length, `${where}: sent more than once`).toBeLessThanOrEqual(ordered ? 0 : 1);
  if (sent.length === 0) swept.unsent.push(failAt);
  expectSentAsUntouched(
    arranged,
    sent.map((arrival) => arrival.request),
    where,
  );

  // The retry, untouched, delivers as an untouched first run would have.
  const second = await runNow(jobId, 2);
  await expectUntouchedRun(arranged, scenario, second, sent.length, where);
  expect(await otherState(arranged), `${where}: something else was written`).toEqual(before);
  return outcome;
};

/** Runs `failAt` = 1, 2, ... until the job runs fewer statements; returns what the sweep saw. */
const sweep = async (failure: Failure, scenario: Scenario): Promise<Swept> => {
  const swept: Swept = { statements: [], unsent: [] };
  for (let failAt = 1; ; failAt++) {
    expect(failAt, "the job never completed untouched").toBeLessThanOrEqual(MAX_STATEMENTS);
    const outcome = await runWithFault(failAt, failure, scenario, swept);
    if (outcome.failed === undefined) {
      expect(outcome.issued, "an untouched run issues as many statements as the sweep failed").toBe(
        swept.statements.length,
      );
      return swept;
    }
  }
};

const normalised = (text: string) => text.trim().replace(/\s+/g, " ").toLowerCase();

/** The failed run sent nothing exactly when a read before the HTTP exchange failed, i.e. at the first positions only. */
const expectSentAfterReads = ({ statements, unsent }: Swept, reads: number) => {
  expect(unsent).toEqual(Array.from({ length: reads }, (_, i) => i + 1));
  for (const text of statements.slice(0, reads)) expect(normalised(text)).toMatch(/^select /);
};

describe("deliver_webhook with one statement failing", () => {
  it(`${unexpected.kind}, the receiver answering 2xx: retried, nothing written, then delivered and recorded once, at every statement`, async () => {
    const swept = await sweep(unexpected, "answered 2xx");
    expectSentAfterReads(swept, 1);
    // The sweep reached both ends of the recording transaction and each of its writes.
    expect(swept.statements.map(normalised)).toEqual([
      expect.stringMatching(/^select .* from "webhook_deliveries" as "d"/),
      "begin",
      expect.stringMatching(/^insert into webhook_delivery_attempts/),
      expect.stringMatching(/^update webhook_deliveries set attempt_count = attempt_count \+ 1/),
      "commit",
    ]);
  });

  it(`${unavailable.kind}, the receiver answering 2xx: the same, at every statement`, async () => {
    expectSentAfterReads(await sweep(unavailable, "answered 2xx"), 1);
  });

  it(`${unexpected.kind}, the receiver answering 503: the retry records the attempt and schedules the next one exactly as an untouched run, at every statement`, async () => {
    const swept = await sweep(unexpected, "answered 503");
    expectSentAfterReads(swept, 1);
    expect(swept.statements.map(normalised)).toContainEqual(expect.stringMatching(/graphile_worker\.add_job\(/));
  });

  it(`${unavailable.kind}, the receiver answering 503: the same, at every statement`, async () => {
    expectSentAfterReads(await sweep(unavailable, "answered 503"), 1);
  });

  it(`${unexpected.kind}, an ordered endpoint's event behind a failed earlier one: never sent, waits behind it as untouched, at every statement`, async () => {
    const swept = await sweep(unexpected, "ordered, behind a failed earlier event");
    expect(swept.statements).toHaveLength(6);
    expect(swept.unsent).toHaveLength(swept.statements.length);
  });
});

/** What the worker's sweep records for a run of a delivery job that its job could not (decision 0455). */
const SPENT_ATTEMPT_ERROR = "internal error: the attempt could not be completed";

describe("deliver_webhook failing on its job's last attempt", () => {
  it(`${unexpected.kind}: the job is spent, and the worker's next sweep counts a failed attempt and schedules the retry that delivers it, at every statement`, async () => {
    const statements: Array<string> = [];
    for (let failAt = 1; ; failAt++) {
      expect(failAt, "the job never completed untouched").toBeLessThanOrEqual(MAX_STATEMENTS);
      const arranged = await arrange();
      const { deliveryId, jobId } = arranged;
      statusByPath.set(arranged.path, 200);
      // As after 4 runs that threw: the next is the job's last.
      await sql`update graphile_worker._private_jobs set attempts = 4 where id = ${jobId}::int8`.execute(db);
      const before = await otherState(arranged);
      armFault(failAt, unexpectedError, workerConnections);
      const last = await runNow(jobId, 5);
      const outcome = await disarmFault();
      const where = `statement ${failAt} (${outcome.failed?.replace(/\s+/g, " ").slice(0, 100)})`;
      if (outcome.failed === undefined) {
        await expectUntouchedRun(arranged, "answered 2xx", last, 0, where);
        expect(await otherState(arranged), `${where}: something else was written`).toEqual(before);
        expect(outcome.issued).toBe(statements.length);
        break;
      }
      statements.push(outcome.failed);

      // Spent: graphile-worker will not run it again; nothing written.
      expect(last.completed, `${where}: the job completed`).toBe(false);
      expect(last.completed ? undefined : last.job, where).toMatchObject({
        attempts: 5,
        max_attempts: 5,
        locked_at: null,
      });
      expect(await deliveryOf(db, deliveryId), `${where}: the delivery changed`).toEqual(arranged.recorded);
      expect(await attemptsOf(db, deliveryId), where).toEqual([]);
      const sent = arrivals(arranged);
      expect(sent.length, where).toBe(failAt === 1 ? 0 : 1);

      // A new worker: its start-up sweep finds the spent job of a pending delivery.
      await workers.restart();
      expect(await jobById(jobId), `${where}: the spent job is left behind`).toBeUndefined();
      const nextAttemptAt = new Date(now.getTime() + 5 * SECOND);
      expect(await deliveryOf(db, deliveryId), `${where}: the delivery is lost`).toEqual({
        ...arranged.recorded,
        attempt_count: 1,
        retry_index: 1,
        next_attempt_at: nextAttemptAt,
        updated_at: now,
      });
      expect(await attemptsOf(db, deliveryId), where).toMatchObject([
        {
          status_code: null,
          attempted_at: now,
          duration_ms: 0,
          error: SPENT_ATTEMPT_ERROR,
          response_body_excerpt: null,
        },
      ]);
      const swept = records.filter(
        (line) => line["msg"] === "webhook delivery jobs spent: each counted as a failed attempt",
      );
      expect(swept.at(-1)?.["deliveryIds"], where).toEqual([deliveryId]);
      const next = await jobByKey(deliveryId);
      expect(next, where).toMatchObject({ run_at: nextAttemptAt, attempts: 0, max_attempts: 5, queue_name: null });

      // The retry delivers it, the same request as ever; recorded as the second attempt.
      expect((await runNow(next!.id, 1)).completed, `${where}: the retry did not complete`).toBe(true);
      const all = arrivals(arranged);
      expect(
        all.map((arrival) => arrival.status),
        where,
      ).toEqual([...sent.map(() => 200), 200]);
      expectSentAsUntouched(
        arranged,
        all.map((arrival) => arrival.request),
        where,
      );
      await expectDeliveredOnRetry(arranged, null, where);
      expect(await otherState(arranged), `${where}: something else was written`).toEqual(before);
    }
    expect(statements.length).toBe(5);
  });

  it("a spent job of a delivery whose retries are used up: the sweep records the attempt and fails the delivery, which can be replayed", async () => {
    const arranged = await arrange();
    const { deliveryId, jobId } = arranged;
    await db
      .updateTable("webhook_deliveries")
      .set({ attempt_count: 10, retry_index: 10 })
      .where("id", "=", deliveryId)
      .execute();
    await sql`update graphile_worker._private_jobs set attempts = 5, last_error = 'injected' where id = ${jobId}::int8`.execute(
      db,
    );
    const recorded = await deliveryOf(db, deliveryId);
    const before = await otherState(arranged);

    await workers.restart();

    expect(await jobById(jobId)).toBeUndefined();
    expect(await jobByKey(deliveryId)).toBeUndefined();
    expect(await deliveryOf(db, deliveryId)).toEqual({
      ...recorded,
      status: "failed",
      attempt_count: 11,
      completed_at: now,
      updated_at: now,
    });
    expect(await attemptsOf(db, deliveryId)).toMatchObject([{ status_code: null, error: SPENT_ATTEMPT_ERROR }]);
    expect(arrivals(arranged)).toEqual([]);
    expect(await otherState(arranged)).toEqual(before);
    // Failed, it is replayable again (a pending delivery is not). The worker is stopped first, or it could
    // take the replay's job at once (seen in CI: the job read back with an attempt already counted).
    await workers.stop();
    const replayed = await db
      .transaction()
      .execute((trx) =>
        replayFailedDeliveries(trx, { companyId: arranged.companyId, endpointId: arranged.endpoint.id, now }),
      );
    expect(replayed).toBe(1);
    expect(await jobByKey(deliveryId)).toMatchObject({ attempts: 0 });
  });
});
