/**
 * The sandbox operations through the real app: the clock read, the advance
 * (its refusals, the job it queues, how it waits for the worker and its 503
 * when the worker does not finish in time) and the message list. The
 * advance's worker is the engine's `advance_sandbox_clock` task; here the end
 * of its run is played with a clock update and graphile-worker's public
 * `complete_jobs`, so the api's side of the protocol is tested on its own
 * (sandbox-end-to-end.test.ts runs the real worker).
 */
import { sandboxMessages } from "@dc/contract";
import { insertSandboxMessages } from "@dc/db";
import { sql } from "kysely";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi, TEST_START } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";

const t = await startTestApi();
const api = jsonApi(t.request);
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const sandbox = await t.sandboxTenant("Sandbox Co");
const other = await t.sandboxTenant("Other Sandbox Co");
const live = await t.tenant("Live Co");
const sandboxToken = await t.token(sandbox);
const liveToken = await t.token(live);

const CLOCK = "/external-api/v1/sandbox/clock";
const ADVANCE = "/external-api/v1/sandbox/clock/advance";
const MESSAGES = "/external-api/v1/sandbox/messages";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;

const notSandbox = { error: true, message: sandboxMessages.notSandbox, code: 404, error_code: "not_a_sandbox" };

/** The company's advance jobs, from graphile-worker's public `jobs` view. */
const advanceJobs = async (companyId: number) =>
  (
    await sql<{ id: number; task: string; locked: boolean; revision: number }>`
      select id, task_identifier as task, locked_at is not null as locked, revision
      from graphile_worker.jobs where key = ${`sandbox-clock:${companyId}`}`.execute(t.db)
  ).rows;

/** Reads the company's advance jobs until `done` holds for them. */
const advanceJobsWhen = async (companyId: number, done: (jobs: Awaited<ReturnType<typeof advanceJobs>>) => boolean) => {
  for (;;) {
    const jobs = await advanceJobs(companyId);
    if (done(jobs)) return jobs;
    await sleep(20);
  }
};

const sandboxNow = async (companyId: number) =>
  (await t.db.selectFrom("companies").select("sandbox_now").where("id", "=", companyId).executeTakeFirstOrThrow())
    .sandbox_now;

/** What the worker's task does at the end of an advance, played here: the clock set, the job completed. */
const finishAdvance = async (companyId: number, to: Date) => {
  await t.db.updateTable("companies").set({ sandbox_now: to }).where("id", "=", companyId).execute();
  const jobs = await advanceJobs(companyId);
  await sql`select graphile_worker.complete_jobs(${`{${jobs.map((job) => job.id).join(",")}}`}::bigint[])`.execute(
    t.db,
  );
};

describe("GET /sandbox/clock", () => {
  it("answers a sandbox company's clock, which starts at its creation", async () => {
    const response = await t.get(CLOCK, sandboxToken);
    expect(response.status).toBe(200);
    expect(await expectContract(response, "get", CLOCK)).toEqual({
      error: false,
      message: "Sandbox clock retrieved successfully",
      data: { now: "2026-11-21T10:00:00+00:00" },
    });
  });

  it("answers 404 to a live company, and 403 without debts:read", async () => {
    const response = await t.get(CLOCK, liveToken);
    expect(response.status).toBe(404);
    expect(await expectContract(response, "get", CLOCK)).toEqual(notSandbox);
    const scoped = await t.get(CLOCK, await t.token(sandbox, "followups:read"));
    expect(scoped.status).toBe(403);
    expect(await expectContract(scoped, "get", CLOCK)).toEqual({
      error: true,
      message: 'Required scope "debts:read" not found in token',
      code: 403,
    });
  });
});

describe("POST /sandbox/clock/advance", () => {
  const companyId = rows.companyOf(sandbox);

  it("refuses a `to` that is missing, malformed, not later than now or too far, naming `to`, queueing nothing", async () => {
    for (const [body, message] of [
      [{}, "is missing"],
      [{ to: "tomorrow" }, "must be an ISO 8601 date-time with an offset or Z"],
      [{ to: "2026-11-21T10:00:00Z" }, "must be later than the sandbox clock's now, 2026-11-21T10:00:00.000Z"],
      [{ to: "2026-11-21T11:00:00+02:00" }, "must be later than the sandbox clock's now, 2026-11-21T10:00:00.000Z"],
      [
        { to: "2027-12-26T10:00:01Z" },
        "must be at most 400 days after the sandbox clock's now, 2026-11-21T10:00:00.000Z",
      ],
    ] as const) {
      const response = await api.post(ADVANCE, sandboxToken, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const answer = await expectContract<Json>(response, "post", ADVANCE);
      expect(answer["details"], JSON.stringify(body)).toEqual({ to: message });
    }
    expect(await advanceJobs(companyId)).toEqual([]);
    expect(await sandboxNow(companyId)).toEqual(TEST_START);
  });

  it("answers 404 to a live company and 403 without debts:write, queueing nothing", async () => {
    const response = await api.post(ADVANCE, liveToken, { to: "2026-11-22T10:00:00Z" });
    expect(response.status).toBe(404);
    expect(await expectContract(response, "post", ADVANCE)).toEqual(notSandbox);
    const scoped = await api.post(ADVANCE, await t.token(sandbox, "debts:read"), { to: "2026-11-22T10:00:00Z" });
    expect(scoped.status).toBe(403);
    expect((await expectContract<Json>(scoped, "post", ADVANCE))["message"]).toBe(
      'Required scope "debts:write" not found in token',
    );
    expect(await advanceJobs(rows.companyOf(live))).toEqual([]);
    expect(await advanceJobs(companyId)).toEqual([]);
  });

  it("queues the worker's advance and answers 503 when it has not finished in time; the advance stays queued", async () => {
    const impatient = await t.startAnotherApi({ config: { sandboxAdvanceWaitMs: 300 } });
    try {
      const response = await fetch(`${impatient.url}${ADVANCE}`, {
        method: "POST",
        headers: { authorization: `Bearer ${sandboxToken}`, "content-type": "application/json" },
        body: JSON.stringify({ to: "2026-11-24T09:30:00+01:00" }),
      });
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("1");
      expect(await expectContract(response, "post", ADVANCE)).toEqual({
        error: true,
        message: sandboxMessages.advancing,
        code: 503,
        error_code: "sandbox_clock_advancing",
      });
    } finally {
      await impatient.stop();
    }
    expect(await advanceJobs(companyId)).toEqual([
      {
        id: expect.anything(),
        task: "advance_sandbox_clock",
        locked: false,
        revision: 0,
      },
    ]);
    expect(await sandboxNow(companyId)).toEqual(TEST_START);
  });

  it("waits until the advance is done and the clock is at `to`, then answers the clock", async () => {
    const to = new Date("2026-11-25T08:00:00Z");
    const [left] = await advanceJobs(companyId);
    const answer = api.post(ADVANCE, sandboxToken, { to: "2026-11-25T09:00:00+01:00" });
    // The request queues its advance, replacing the one the 503 left (the same job, its next revision), and waits.
    await advanceJobsWhen(companyId, (jobs) => jobs.length === 1 && jobs[0]!.revision > left!.revision);
    await finishAdvance(companyId, to);
    const response = await answer;
    expect(response.status).toBe(200);
    expect(await expectContract(response, "post", ADVANCE)).toEqual({
      error: false,
      message: "Sandbox clock advanced successfully",
      data: { now: "2026-11-25T08:00:00+00:00" },
    });
    expect(await advanceJobs(companyId)).toEqual([]);
    expect(await expectContract(await t.get(CLOCK, sandboxToken), "get", CLOCK)).toMatchObject({
      data: { now: "2026-11-25T08:00:00+00:00" },
    });
  });

  it("queues the advance again when the one that ran stopped short of `to` (an earlier target replaced it)", async () => {
    const answer = api.post(ADVANCE, sandboxToken, { to: "2026-11-27T08:00:00Z" });
    const [queued] = await advanceJobsWhen(companyId, (jobs) => jobs.length === 1);
    // Another request's earlier target ran instead: the clock stops at the 26th and the job is gone.
    await finishAdvance(companyId, new Date("2026-11-26T08:00:00Z"));
    const [requeued] = await advanceJobsWhen(companyId, (jobs) => jobs.length === 1 && jobs[0]!.id !== queued!.id);
    expect(requeued!.task).toBe("advance_sandbox_clock");
    await finishAdvance(companyId, new Date("2026-11-27T08:00:00Z"));
    const response = await answer;
    expect(response.status).toBe(200);
    expect((await expectContract<Json>(response, "post", ADVANCE))["data"]).toEqual({
      now: "2026-11-27T08:00:00+00:00",
    });
  });
});

const messagesCompany = rows.companyOf(sandbox);
const first = await rows.debt(sandbox, { email: "jane@example.com" });
const second = await rows.debt(sandbox, { phone: "+33612340001" });
const followupOf = (debtId: number) => rows.followup(sandbox, debtId, { type: "email", status: "delivered" });
const [f1, f2, f3] = [await followupOf(first), await followupOf(second), await followupOf(first)];
await insertSandboxMessages(t.db, [
  {
    companyId: messagesCompany,
    debtId: first,
    followupId: f1,
    idempotencyKey: `${ids.encode("followup", f1)}:1`,
    channel: "email",
    recipient: "jane@example.com",
    subject: "Your invoice",
    body: "Hello Jane",
    outcome: "delivered",
    sentAt: new Date("2026-11-21T10:00:00Z"),
  },
  {
    companyId: messagesCompany,
    debtId: second,
    followupId: f2,
    idempotencyKey: `${ids.encode("followup", f2)}:1`,
    channel: "ai_call",
    recipient: "+33612340001",
    subject: null,
    body: "Call script",
    outcome: "deal_found",
    sentAt: new Date("2026-11-22T10:00:00Z"),
  },
  {
    companyId: messagesCompany,
    debtId: first,
    followupId: f3,
    idempotencyKey: `${ids.encode("followup", f3)}:1`,
    channel: "sms",
    recipient: "+33612345678",
    subject: null,
    body: "Pay now",
    outcome: "sent",
    sentAt: new Date("2026-11-24T09:00:00Z"),
  },
]);
const messageIds = (
  await t.db
    .selectFrom("sandbox_messages")
    .select(["id", "followup_id"])
    .where("company_id", "=", messagesCompany)
    .execute()
).reduce(
  (byFollowup, row) => byFollowup.set(row.followup_id, ids.encode("sandbox_message", row.id)),
  new Map<number, string>(),
);

describe("GET /sandbox/messages", () => {
  it("lists the messages newest first, paginated, with what they said and how they ended", async () => {
    const response = await t.get(`${MESSAGES}?limit=2`, sandboxToken);
    expect(response.status).toBe(200);
    expect(await expectContract(response, "get", MESSAGES)).toEqual({
      error: false,
      data: [
        {
          id: messageIds.get(f3),
          debt_id: ids.encode("debt", first),
          followup_id: ids.encode("followup", f3),
          channel: "sms",
          recipient: "+33612345678",
          subject: null,
          body: "Pay now",
          outcome: "sent",
          sent_at: "2026-11-24T09:00:00+00:00",
        },
        {
          id: messageIds.get(f2),
          debt_id: ids.encode("debt", second),
          followup_id: ids.encode("followup", f2),
          channel: "ai_call",
          recipient: "+33612340001",
          subject: null,
          body: "Call script",
          outcome: "deal_found",
          sent_at: "2026-11-22T10:00:00+00:00",
        },
      ],
      pagination: { total: 3, page: 1, limit: 2, pages: 2 },
    });
    const page2 = await expectContract<Json>(await t.get(`${MESSAGES}?limit=2&page=2`, sandboxToken), "get", MESSAGES);
    expect(page2["data"].map((message: Json) => message["subject"])).toEqual(["Your invoice"]);
  });

  it("filters by debt; another company's debt matches nothing; an id that is no debt id is a 400", async () => {
    const mine = await expectContract<Json>(
      await t.get(`${MESSAGES}?debt_id=${ids.encode("debt", first)}`, sandboxToken),
      "get",
      MESSAGES,
    );
    expect(mine["data"].map((message: Json) => message["followup_id"])).toEqual([
      ids.encode("followup", f3),
      ids.encode("followup", f1),
    ]);
    expect(mine["pagination"]["total"]).toBe(2);
    const theirs = await t.get(`${MESSAGES}?debt_id=${ids.encode("debt", first)}`, await t.token(other));
    expect(await expectContract(theirs, "get", MESSAGES)).toEqual({
      error: false,
      data: [],
      pagination: { total: 0, page: 1, limit: 20, pages: 0 },
    });
    const bad = await t.get(`${MESSAGES}?debt_id=nope`, sandboxToken);
    expect(bad.status).toBe(400);
    expect((await expectContract<Json>(bad, "get", MESSAGES))["details"]).toEqual({ debt_id: "must be a debt id" });
  });

  it("answers 404 to a live company and 403 without debts:read", async () => {
    const response = await t.get(MESSAGES, liveToken);
    expect(response.status).toBe(404);
    expect(await expectContract(response, "get", MESSAGES)).toEqual(notSandbox);
    const scoped = await t.get(MESSAGES, await t.token(sandbox, "debts:write"));
    expect(scoped.status).toBe(403);
  });
});
