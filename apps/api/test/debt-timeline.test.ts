/**
 * A debt's run of its timeline through the real app: GET /debts/{id}/timeline
 * and its pause, resume and restart, over the engine's enrollment statements
 * on real PostgreSQL. Debts are put on their timeline with the engine's own
 * `enrollDebts`, as debt creation does, so this file does not depend on the
 * creation paths. Each operation: its success shape and effects, each
 * documented error, the wrong scope, another company's debt.
 */
import { debtTimelineMessages, messages } from "@dc/contract";
import { enrollDebts, stopEnrollments } from "@dc/db";
import { describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";

const t = await startTestApi();
const api = jsonApi(t.request);
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Timelines");
const globex = await t.tenant("Globex Timelines");
const companyId = rows.companyOf(acme);
const token = await t.token(acme);
const globexToken = await t.token(globex);
const timelineId = ids.decode("timeline", acme.timeline_id)!;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;

const GET = "/external-api/v1/debts/{id}/timeline";
const PAUSE = "/external-api/v1/debts/{id}/timeline/pause";
const RESUME = "/external-api/v1/debts/{id}/timeline/resume";
const RESTART = "/external-api/v1/debts/{id}/timeline/restart";
const path = (template: string, debtId: number | string) =>
  template.replace("{id}", typeof debtId === "number" ? ids.encode("debt", debtId) : debtId);

/** A debt of Acme on its standard timeline, enrolled as creation enrolls it. */
const enrolledDebt = async (fields: Parameters<typeof rows.debt>[1] = {}) => {
  const debtId = await rows.debt(acme, { timeline_id: timelineId, email: "jane@example.com", ...fields });
  await t.db
    .transaction()
    .execute((trx) => enrollDebts(trx, { companyId, debtIds: [debtId], now: t.clock.now(), restart: false }));
  return debtId;
};

const read = async (debtId: number, accessToken = token) => t.get(path(GET, debtId), accessToken);

const conflict = (code: string, message: string) => ({ error: true, message, code: 409, error_code: code });
const notOnTimeline = conflict("not_on_timeline", debtTimelineMessages.notOnTimeline);
const notRunning = conflict("timeline_not_running", debtTimelineMessages.notRunning);
const debtNotFound = { error: true, message: messages.debtNotFound, code: 404 };

const followupsOf = (debtId: number) =>
  t.db
    .selectFrom("followups")
    .select(["id", "status", "step", "run"])
    .where("debt_id", "=", debtId)
    .orderBy("id")
    .execute();

describe("GET /debts/{id}/timeline", () => {
  it("answers the run: state, next action, every step done or to come with its followups", async () => {
    const debtId = await enrolledDebt();
    const [waiting] = await followupsOf(debtId);
    const response = await read(debtId);
    expect(response.status).toBe(200);
    const body = await expectContract<Json>(response, "get", GET);
    const start = "2026-11-21T10:00:00+00:00";
    expect(body).toEqual({
      error: false,
      message: "Debt timeline retrieved successfully",
      data: {
        debt_id: ids.encode("debt", debtId),
        timeline_id: acme.timeline_id,
        version: 1,
        state: "active",
        reason: null,
        paused_until: null,
        started_at: start,
        restarts: 0,
        next_action_at: expect.any(String),
        now: start,
        steps: [
          {
            step: 0,
            day_offset: 0,
            channel: "email",
            due_at: expect.any(String),
            status: "waiting",
            followups: [
              {
                id: ids.encode("followup", waiting!.id),
                status: "scheduled",
                attempt: 1,
                is_retry: false,
                scheduled_at: body.data.next_action_at,
                processed_at: null,
                recipient: null,
                decisions: [],
              },
            ],
          },
          { step: 1, day_offset: 3, channel: "sms", due_at: expect.any(String), status: "upcoming", followups: [] },
          { step: 2, day_offset: 7, channel: "ai_call", due_at: expect.any(String), status: "upcoming", followups: [] },
          { step: 3, day_offset: 14, channel: "email", due_at: expect.any(String), status: "upcoming", followups: [] },
        ],
      },
    });
    // Every due time counts from the anchor: day 3 is three days after day 0.
    const dues = body.data.steps.map((step: Json) => Date.parse(step.due_at));
    expect(dues[1] - dues[0]).toBeGreaterThanOrEqual(3 * 86_400_000 - 3_600_000);
    expect(dues[1] - dues[0]).toBeLessThanOrEqual(3 * 86_400_000 + 3_600_000);
  });

  it("answers 404 not_on_timeline for a debt that never ran one, and Debt not found for unknown and foreign ids", async () => {
    const plain = await rows.debt(acme);
    const response = await read(plain);
    expect(response.status).toBe(404);
    expect(await expectContract(response, "get", GET)).toEqual({
      error: true,
      message: debtTimelineMessages.notOnTimeline,
      code: 404,
      error_code: "not_on_timeline",
    });
    const debtId = await enrolledDebt();
    for (const [id, accessToken] of [
      [ids.encode("debt", debtId), globexToken],
      ["not-an-id", token],
      [ids.encode("debt", 999_999_999), token],
    ] as const) {
      const refused = await t.get(path(GET, id), accessToken);
      expect(refused.status, id).toBe(404);
      expect(await expectContract(refused, "get", GET)).toEqual(debtNotFound);
    }
  });

  it("requires debts:read", async () => {
    const debtId = await enrolledDebt();
    const response = await read(debtId, await t.token(acme, "followups:read"));
    expect(response.status).toBe(403);
    expect((await expectContract<Json>(response, "get", GET))["message"]).toBe(
      'Required scope "debts:read" not found in token',
    );
  });
});

describe("POST /debts/{id}/timeline/pause and resume", () => {
  it("pauses until resumed: the waiting followup goes on hold, and comes back scheduled", async () => {
    const debtId = await enrolledDebt();
    const response = await api.post(path(PAUSE, debtId), token, {});
    expect(response.status).toBe(200);
    const paused = await expectContract<Json>(response, "post", PAUSE);
    expect(paused["message"]).toBe("Debt timeline paused successfully");
    expect(paused["data"]).toMatchObject({
      state: "paused",
      reason: "paused",
      paused_until: null,
      next_action_at: null,
    });
    expect(paused["data"]["steps"][0]).toMatchObject({ status: "waiting", followups: [{ status: "on_hold" }] });
    expect((await followupsOf(debtId)).map((row) => row.status)).toEqual(["on_hold"]);

    const resumed = await api.post(path(RESUME, debtId), token, undefined);
    expect(resumed.status).toBe(200);
    const body = await expectContract<Json>(resumed, "post", RESUME);
    expect(body["message"]).toBe("Debt timeline resumed successfully");
    expect(body["data"]).toMatchObject({ state: "active", reason: null });
    expect(body["data"]["steps"][0]["followups"].map((row: Json) => row["status"])).toEqual(["scheduled"]);
    expect(body["data"]["next_action_at"]).toEqual(body["data"]["steps"][0]["followups"][0]["scheduled_at"]);
    // Resuming an active timeline changes nothing.
    const again = await api.post(path(RESUME, debtId), token, undefined);
    expect(again.status).toBe(200);
    expect((await expectContract<Json>(again, "post", RESUME))["data"]).toEqual(body["data"]);
  });

  it("pauses until a date with a reason, and a second pause replaces both", async () => {
    const debtId = await enrolledDebt();
    const first = await api.post(path(PAUSE, debtId), token, {
      until: "2026-12-01T00:00:00+01:00",
      reason: "On holiday",
    });
    expect((await expectContract<Json>(first, "post", PAUSE))["data"]).toMatchObject({
      state: "paused",
      reason: "On holiday",
      paused_until: "2026-11-30T23:00:00+00:00",
    });
    const second = await api.post(path(PAUSE, debtId), token, { reason: "Disputed by phone" });
    expect((await expectContract<Json>(second, "post", PAUSE))["data"]).toMatchObject({
      state: "paused",
      reason: "Disputed by phone",
      paused_until: null,
    });
  });

  it("refuses a bad body naming the field, and writes nothing", async () => {
    const debtId = await enrolledDebt();
    for (const [body, details] of [
      [
        { until: "2026-11-21T09:00:00Z" },
        { until: "must be later than the company's clock now, 2026-11-21T10:00:00.000Z" },
      ],
      [{ until: "soon" }, { until: "must be an ISO 8601 date-time with an offset or Z" }],
      [{ reason: "" }, { reason: "must not be empty" }],
      [{ reason: "x".repeat(256) }, { reason: "must be at most 255 characters" }],
      [{ state: "paused" }, { state: 'unknown field "state"' }],
    ] as const) {
      const response = await api.post(path(PAUSE, debtId), token, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await expectContract<Json>(response, "post", PAUSE))["details"]).toEqual(details);
    }
    expect((await followupsOf(debtId)).map((row) => row.status)).toEqual(["scheduled"]);
  });

  it("answers 409 for a debt not on a timeline and for a stopped run", async () => {
    const plain = await rows.debt(acme);
    for (const [template, body] of [
      [PAUSE, {}],
      [RESUME, undefined],
    ] as const) {
      const response = await api.post(path(template, plain), token, body);
      expect(response.status).toBe(409);
      expect(await expectContract(response, "post", template)).toEqual(notOnTimeline);
    }
    const stopped = await enrolledDebt();
    await t.db
      .transaction()
      .execute((trx) => stopEnrollments(trx, { companyId, debtIds: [stopped], reason: "paid", now: t.clock.now() }));
    for (const [template, body] of [
      [PAUSE, {}],
      [RESUME, undefined],
    ] as const) {
      const response = await api.post(path(template, stopped), token, body);
      expect(response.status).toBe(409);
      expect(await expectContract(response, "post", template)).toEqual(notRunning);
    }
    expect((await expectContract<Json>(await read(stopped), "get", GET))["data"]).toMatchObject({
      state: "stopped",
      reason: "paid",
    });
  });

  it("answers Debt not found for another company's debt, and 403 without debts:write", async () => {
    const debtId = await enrolledDebt();
    for (const [template, body] of [
      [PAUSE, {}],
      [RESUME, undefined],
      [RESTART, undefined],
    ] as const) {
      const foreign = await api.post(path(template, debtId), globexToken, body);
      expect(foreign.status).toBe(404);
      expect(await expectContract(foreign, "post", template)).toEqual(debtNotFound);
      const scoped = await api.post(path(template, debtId), await t.token(acme, "debts:read"), body);
      expect(scoped.status).toBe(403);
    }
    expect((await followupsOf(debtId)).map((row) => row.status)).toEqual(["scheduled"]);
  });
});

describe("POST /debts/{id}/timeline/restart", () => {
  it("starts the timeline over as a new run, cancels the waiting followup and sets last_timeline_restart", async () => {
    const debtId = await enrolledDebt();
    await api.post(path(PAUSE, debtId), token, {});
    t.clock.advance(60_000);
    const response = await api.post(path(RESTART, debtId), token, undefined);
    expect(response.status).toBe(200);
    const body = await expectContract<Json>(response, "post", RESTART);
    expect(body["message"]).toBe("Debt timeline restarted successfully");
    expect(body["data"]).toMatchObject({
      state: "active",
      restarts: 1,
      started_at: "2026-11-21T10:01:00+00:00",
      steps: [{ status: "waiting", followups: [{ status: "scheduled" }] }, { status: "upcoming" }, {}, {}],
    });
    const followups = await followupsOf(debtId);
    expect(followups.map((row) => [row.status, row.step, row.run])).toEqual([
      ["cancelled", 0, 1],
      ["scheduled", 0, 2],
    ]);
    const debt = await expectContract<Json>(
      await t.get(`/external-api/v1/debts/${ids.encode("debt", debtId)}`, token),
      "get",
      "/external-api/v1/debts/{id}",
    );
    expect(debt["data"]["last_timeline_restart"]).toBe("2026-11-21T10:01:00+00:00");
  });

  it("restarts a stopped run, and takes the timeline's current version", async () => {
    const debtId = await enrolledDebt();
    await t.db
      .transaction()
      .execute((trx) => stopEnrollments(trx, { companyId, debtIds: [debtId], reason: "stopped", now: t.clock.now() }));
    const response = await api.post(path(RESTART, debtId), token, undefined);
    expect(response.status).toBe(200);
    expect((await expectContract<Json>(response, "post", RESTART))["data"]).toMatchObject({
      state: "active",
      version: 1,
    });
  });

  it("answers 409 for a debt without a timeline and for a paid debt", async () => {
    const plain = await rows.debt(acme);
    const none = await api.post(path(RESTART, plain), token, undefined);
    expect(none.status).toBe(409);
    expect(await expectContract(none, "post", RESTART)).toEqual(notOnTimeline);
    const paid = await rows.debt(acme, { timeline_id: timelineId, status: "status.default.paid", balance_minor: 0 });
    const closed = await api.post(path(RESTART, paid), token, undefined);
    expect(closed.status).toBe(409);
    expect(await expectContract(closed, "post", RESTART)).toEqual(
      conflict("debt_closed", debtTimelineMessages.debtClosed),
    );
    expect(await followupsOf(paid)).toEqual([]);
  });
});
