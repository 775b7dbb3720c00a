/**
 * The review queue through the real app: GET /todos filtered by status and
 * type, and POST /todos/{id}/validate and /reject with what each review does
 * to the debt's collection on real PostgreSQL (the plan created, the debt's
 * status, the enrollment paused, stopped or released for the guard), the
 * webhook events recorded in the review's transaction, each documented
 * error, the wrong scope, another company's todo ids and bad input.
 *
 * Debts are put on their timeline with the engine's own `enrollDebts`. A
 * followup waiting behind an open-ended hold is written as the guard leaves
 * it (`guard_reason` hold, re-checked an hour later, docs/decisions/0602).
 */
import { messages } from "@dc/contract";
import { enrollDebts } from "@dc/db";
import { describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi, rowCounts } from "./support/json-api.ts";
import { expectWebhookPayload } from "./support/webhooks-support.ts";

const t = await startTestApi();
const api = jsonApi(t.request);
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Reviews");
const globex = await t.tenant("Globex Reviews");
const companyId = rows.companyOf(acme);
const token = await t.token(acme);
const readOnly = await t.token(acme, "debts:read");
const timelineId = ids.decode("timeline", acme.timeline_id)!;
const NOW = t.clock.now();
const HOUR = 3_600_000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;

const LIST = "/external-api/v1/todos";
const VALIDATE = "/external-api/v1/todos/{id}/validate";
const REJECT = "/external-api/v1/todos/{id}/reject";
const STATS = "/external-api/v1/todos/stats";
const at = (template: string, id: string) => template.replace("{id}", id);
const requestId = (id: number) => ids.encode("debtor_request", id);
const detectionId = (id: number) => ids.encode("ai_detection", id);

const endpoint = await api.post("/external-api/v1/webhooks/endpoints", token, {
  url: "http://127.0.0.1:9/reviews",
  event_types: ["todo.reviewed", "payment_plan.replaced", "debt.updated"],
});
expect(endpoint.status).toBe(201);

/** A debt of Acme (100.00 EUR) on its timeline, its first followup waiting behind a hold as the guard leaves it. */
const heldDebt = async () => {
  const debtId = await rows.debt(acme, { timeline_id: timelineId, email: "jane@example.com" });
  await t.db
    .transaction()
    .execute((trx) => enrollDebts(trx, { companyId, debtIds: [debtId], now: NOW, restart: false }));
  await t.db
    .updateTable("followups")
    .set({
      guard_reason: "hold",
      guard_detail: "dispute hold until lifted",
      scheduled_at: new Date(NOW.getTime() + HOUR),
    })
    .where("company_id", "=", companyId)
    .where("debt_id", "=", debtId)
    .execute();
  return debtId;
};

const stateOf = async (debtId: number) => {
  const enrollment = await t.db
    .selectFrom("enrollments")
    .select(["state", "reason", "paused_until"])
    .where("company_id", "=", companyId)
    .where("debt_id", "=", debtId)
    .executeTakeFirstOrThrow();
  const followups = await t.db
    .selectFrom("followups")
    .select(["status", "scheduled_at"])
    .where("company_id", "=", companyId)
    .where("debt_id", "=", debtId)
    .execute();
  const debt = await t.db
    .selectFrom("debts")
    .select("status")
    .where("company_id", "=", companyId)
    .where("id", "=", debtId)
    .executeTakeFirstOrThrow();
  return { ...enrollment, followups, debtStatus: debt.status };
};

const eventsSince = async (since: number) =>
  (
    await t.db
      .selectFrom("webhook_events")
      .select(["id", "type", "payload"])
      .where("company_id", "=", companyId)
      .where("id", ">", since)
      .orderBy("id")
      .execute()
  ).map((event) => ({ type: event.type, body: JSON.parse(event.payload as string) as Json }));

const lastEventId = async () =>
  (
    await t.db
      .selectFrom("webhook_events")
      .select((eb) => eb.fn.coalesce(eb.fn.max("id"), eb.lit(0)).as("id"))
      .where("company_id", "=", companyId)
      .executeTakeFirstOrThrow()
  ).id as number;

const review = async (template: string, id: string, body: unknown = {}, accessToken = token) => {
  const response = await api.post(at(template, id), accessToken, body);
  return { status: response.status, body: await expectContract<Json>(response, "post", template) };
};

const proposal = {
  installments: [
    { amount_minor: 6_000, payment_date: "2026-12-01" },
    { amount_minor: 4_000, payment_date: "2027-01-01" },
  ],
};

describe("POST /todos/{id}/validate", () => {
  it("turns a plan proposal into the debt's active plan, on the payment_plan status, and lets the guard look again", async () => {
    const debtId = await heldDebt();
    const todo = await rows.debtorRequest(acme, debtId, {
      type: "payment_plan",
      blocking: true,
      message: "Two months, please",
      content: JSON.stringify(proposal),
      created_at: new Date("2026-11-20T08:00:00Z"),
    });
    const before = await lastEventId();
    const { status, body } = await review(VALIDATE, requestId(todo), { note: "Agreed on the phone" });
    expect(status).toBe(200);
    expect(body).toEqual({
      error: false,
      message: "Todo validated successfully",
      data: {
        id: requestId(todo),
        source: "debtor_request",
        type: "payment_plan",
        review_status: "validated",
        blocking: true,
        debt_id: ids.encode("debt", debtId),
        followup_id: null,
        message: "Two months, please",
        content: {
          currency: "EUR",
          installments: [
            { amount: 60, payment_date: "2026-12-01" },
            { amount: 40, payment_date: "2027-01-01" },
          ],
        },
        attachment: null,
        note: "Agreed on the phone",
        created_at: "2026-11-20T08:00:00+00:00",
        reviewed_at: "2026-11-21T10:00:00+00:00",
      },
    });

    const plans = await t.db
      .selectFrom("payment_plans")
      .select(["id", "status", "source", "external_reference", "start_date"])
      .where("company_id", "=", companyId)
      .where("debt_id", "=", debtId)
      .execute();
    expect(plans).toEqual([
      {
        id: expect.any(Number),
        status: "active",
        source: "portal",
        external_reference: requestId(todo),
        start_date: "2026-12-01",
      },
    ]);
    const installments = await t.db
      .selectFrom("installments")
      .select(["position", "amount_minor", "status", "external_reference"])
      .where("company_id", "=", companyId)
      .where("payment_plan_id", "=", plans[0]!.id)
      .orderBy("position")
      .execute();
    expect(installments.map((i) => [i.position, Number(i.amount_minor), i.status, i.external_reference])).toEqual([
      [0, 6_000, "pending", `${requestId(todo)}-1`],
      [1, 4_000, "pending", `${requestId(todo)}-2`],
    ]);

    const state = await stateOf(debtId);
    expect(state.debtStatus).toBe("status.default.payment_plan");
    expect(state.state).toBe("active");
    // Released to its due time: the next sweep decides it, and the plan's installments hold it then.
    expect(state.followups).toEqual([{ status: "scheduled", scheduled_at: NOW }]);

    const events = await eventsSince(before);
    expect(events.map((event) => event.type)).toEqual(["debt.updated", "payment_plan.replaced", "todo.reviewed"]);
    for (const event of events) expectWebhookPayload(event.body, event.type);
    expect(events[2]!.body.data).toEqual(body.data);
    expect(events[1]!.body.data).toMatchObject({
      debt_id: ids.encode("debt", debtId),
      payment_plan: { source: "portal", status: "active", installments: [{ amount: 60 }, { amount: 40 }] },
      replaced_payment_plan_id: null,
    });

    const stats = await expectContract<Json>(await t.get(`${STATS}?period=today`, token), "get", STATS);
    expect(stats.data.stats.agreements).toEqual({ total: 1, active: 1, pending: 1, overdue: 0 });
  });

  it("replaces the debt's active plan with the validated one", async () => {
    const debtId = await heldDebt();
    const old = await rows.paymentPlan(acme, debtId, { created_at: new Date("2026-10-01T00:00:00Z") }, [
      { payment_date: "2026-10-15", status: "pending" },
    ]);
    const todo = await rows.debtorRequest(acme, debtId, {
      type: "payment_plan",
      blocking: true,
      content: JSON.stringify(proposal),
    });
    const before = await lastEventId();
    expect((await review(VALIDATE, requestId(todo))).status).toBe(200);
    const plans = await t.db
      .selectFrom("payment_plans")
      .select(["id", "status"])
      .where("company_id", "=", companyId)
      .where("debt_id", "=", debtId)
      .orderBy("id")
      .execute();
    expect(plans.map((plan) => [plan.id === old, plan.status])).toEqual([
      [true, "replaced"],
      [false, "active"],
    ]);
    const replaced = (await eventsSince(before)).find((event) => event.type === "payment_plan.replaced");
    expect(replaced?.body.data.replaced_payment_plan_id).toBe(ids.encode("payment_plan", old));
  });

  it("answers 409 and writes nothing for a proposal that no longer adds up to the balance", async () => {
    const debtId = await heldDebt();
    await t.db.updateTable("debts").set({ balance_minor: 7_000 }).where("id", "=", debtId).execute();
    const todo = await rows.debtorRequest(acme, debtId, {
      type: "payment_plan",
      blocking: true,
      content: JSON.stringify(proposal),
    });
    const counts = await rowCounts(t.db);
    const before = await lastEventId();
    const { status, body } = await review(VALIDATE, requestId(todo), { note: "ok" });
    expect(status).toBe(409);
    expect(body).toEqual({
      error: true,
      message: "The payment plan proposal no longer fits the debt",
      code: 409,
      error_code: "payment_plan_proposal_unfit",
    });
    expect(await rowCounts(t.db)).toEqual(counts);
    expect(await eventsSince(before)).toEqual([]);
    const stored = await t.db
      .selectFrom("debtor_requests")
      .select(["review_status", "review_note"])
      .where("id", "=", todo)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ review_status: "suggested", review_note: null });
    expect((await stateOf(debtId)).followups[0]!.scheduled_at).toEqual(new Date(NOW.getTime() + HOUR));
  });

  it("marks the debt disputed and stops its timeline for a blocking dispute, from a request or a detection", async () => {
    for (const [create, id] of [
      [(debtId: number) => rows.debtorRequest(acme, debtId, { type: "portal_dispute", blocking: true }), requestId],
      [(debtId: number) => rows.aiDetection(acme, debtId, { type: "ai_dispute", blocking: true }), detectionId],
    ] as const) {
      const debtId = await heldDebt();
      const todo = await create(debtId);
      const before = await lastEventId();
      const { status, body } = await review(VALIDATE, id(todo));
      expect(status).toBe(200);
      expect(body.data.review_status).toBe("validated");
      const state = await stateOf(debtId);
      expect(state).toMatchObject({ state: "stopped", reason: "disputed", debtStatus: "status.default.disputed" });
      expect(state.followups.map((f) => f.status)).toEqual(["cancelled"]);
      const events = await eventsSince(before);
      expect(events.map((event) => event.type)).toEqual(["debt.updated", "todo.reviewed"]);
      expect(events[0]!.body.data.status).toBe("status.default.disputed");
    }
  });

  it("lifts the hold of a non-blocking dispute and of an objection: the timeline goes on", async () => {
    for (const [create, id] of [
      [(debtId: number) => rows.aiDetection(acme, debtId, { type: "ai_dispute", blocking: false }), detectionId],
      [(debtId: number) => rows.aiDetection(acme, debtId, { type: "objection", blocking: true }), detectionId],
      [(debtId: number) => rows.debtorRequest(acme, debtId, { type: "portal_dispute", blocking: false }), requestId],
    ] as const) {
      const debtId = await heldDebt();
      const source = id(await create(debtId));
      expect((await review(VALIDATE, source)).status).toBe(200);
      const state = await stateOf(debtId);
      expect(state).toMatchObject({ state: "active", reason: null, debtStatus: "status.default.pending" });
      expect(state.followups).toEqual([{ status: "scheduled", scheduled_at: NOW }]);
    }
  });

  it("pauses the timeline for 30 days on a validated hardship", async () => {
    const debtId = await heldDebt();
    const todo = await rows.debtorRequest(acme, debtId, { type: "hardship", blocking: true, message: "Lost my job" });
    expect((await review(VALIDATE, requestId(todo))).status).toBe(200);
    const state = await stateOf(debtId);
    expect(state).toMatchObject({
      state: "paused",
      reason: "hardship",
      paused_until: new Date("2026-12-21T10:00:00Z"),
      debtStatus: "status.default.pending",
    });
    expect(state.followups.map((f) => f.status)).toEqual(["on_hold"]);
  });
});

describe("POST /todos/{id}/reject", () => {
  it("rejects with a note, lifts the hold and records todo.reviewed", async () => {
    const debtId = await heldDebt();
    const todo = await rows.debtorRequest(acme, debtId, {
      type: "portal_dispute",
      blocking: true,
      message: "Not mine",
    });
    const before = await lastEventId();
    const { status, body } = await review(REJECT, requestId(todo), { note: "Signed delivery note on file" });
    expect(status).toBe(200);
    expect(body.message).toBe("Todo rejected successfully");
    expect(body.data).toMatchObject({
      review_status: "rejected",
      note: "Signed delivery note on file",
      reviewed_at: "2026-11-21T10:00:00+00:00",
    });
    const state = await stateOf(debtId);
    expect(state).toMatchObject({ state: "active", debtStatus: "status.default.pending" });
    expect(state.followups).toEqual([{ status: "scheduled", scheduled_at: NOW }]);
    const events = await eventsSince(before);
    expect(events.map((event) => event.type)).toEqual(["todo.reviewed"]);
    expect(events[0]!.body.data).toEqual(body.data);
  });

  it("rejects a plan proposal without creating a plan", async () => {
    const debtId = await heldDebt();
    const todo = await rows.debtorRequest(acme, debtId, {
      type: "payment_plan",
      blocking: true,
      content: JSON.stringify(proposal),
    });
    expect((await review(REJECT, requestId(todo), {})).status).toBe(200);
    const plans = await t.db.selectFrom("payment_plans").select("id").where("debt_id", "=", debtId).execute();
    expect(plans).toEqual([]);
    expect((await stateOf(debtId)).debtStatus).toBe("status.default.pending");
  });
});

describe("review errors", () => {
  it("answers 409 for a todo reviewed before, naming its status, and changes nothing", async () => {
    const debtId = await heldDebt();
    const validated = await rows.debtorRequest(acme, debtId, { type: "hardship", review_status: "validated" });
    const rejected = await rows.aiDetection(acme, debtId, { type: "objection", review_status: "rejected" });
    for (const [id, status] of [
      [requestId(validated), "validated"],
      [detectionId(rejected), "rejected"],
    ] as const) {
      for (const template of [VALIDATE, REJECT]) {
        const response = await review(template, id, { note: "again" });
        expect(response).toEqual({
          status: 409,
          body: { error: true, message: `Todo already ${status}`, code: 409, error_code: "todo_already_reviewed" },
        });
      }
    }
    expect((await stateOf(debtId)).followups[0]!.scheduled_at).toEqual(new Date(NOW.getTime() + HOUR));
  });

  it("answers 404 Todo not found for another company's todo, an unknown, malformed or wrong-kind id", async () => {
    const globexDebt = await rows.debt(globex);
    const theirs = await rows.debtorRequest(globex, globexDebt, { type: "hardship", blocking: true });
    const theirDetection = await rows.aiDetection(globex, globexDebt, { type: "objection" });
    const notFound = { status: 404, body: { error: true, message: "Todo not found", code: 404 } };
    for (const id of [
      requestId(theirs),
      detectionId(theirDetection),
      requestId(999_999_999),
      "not-an-id",
      ids.encode("debt", globexDebt),
    ]) {
      for (const template of [VALIDATE, REJECT]) expect(await review(template, id), id).toEqual(notFound);
    }
    const stored = await t.db
      .selectFrom("debtor_requests")
      .select("review_status")
      .where("id", "=", theirs)
      .executeTakeFirstOrThrow();
    expect(stored.review_status).toBe("suggested");
  });

  it("answers 403 without debts:write", async () => {
    const debtId = await heldDebt();
    const todo = await rows.debtorRequest(acme, debtId, { type: "hardship", blocking: true });
    for (const template of [VALIDATE, REJECT]) {
      expect(await review(template, requestId(todo), {}, readOnly)).toEqual({
        status: 403,
        body: { error: true, message: messages.missingScope("debts:write"), code: 403 },
      });
    }
    expect((await stateOf(debtId)).state).toBe("active");
  });

  it("answers 400 naming note for a note too long or not a string, and writes nothing", async () => {
    const debtId = await heldDebt();
    const todo = await rows.debtorRequest(acme, debtId, { type: "hardship", blocking: true });
    for (const [body, detail] of [
      [{ note: "x".repeat(1001) }, "must be at most 1000 characters"],
      [{ note: 12 }, "must be a string"],
    ] as const) {
      const { status, body: answer } = await review(VALIDATE, requestId(todo), body);
      expect(status).toBe(400);
      expect(answer).toMatchObject({ error: true, message: "Validation failed", code: 400 });
      expect(Object.keys(answer.details)).toEqual(["note"]);
      if (detail.startsWith("must be at most")) expect(answer.details.note).toBe(detail);
    }
    const stored = await t.db
      .selectFrom("debtor_requests")
      .select("review_status")
      .where("id", "=", todo)
      .executeTakeFirstOrThrow();
    expect(stored.review_status).toBe("suggested");
    expect((await stateOf(debtId)).state).toBe("active");
  });
});

// A company of its own, so the filters see only these four todos.
const tenant = await t.tenant("Filtered Reviews");
const tenantToken = await t.token(tenant);
const debtId = await rows.debt(tenant);
const made = {
  suggestedPlan: requestId(
    await rows.debtorRequest(tenant, debtId, { type: "payment_plan", created_at: new Date("2026-11-21T09:00:00Z") }),
  ),
  validatedDispute: requestId(
    await rows.debtorRequest(tenant, debtId, {
      type: "portal_dispute",
      review_status: "validated",
      created_at: new Date("2026-11-21T08:00:00Z"),
    }),
  ),
  rejectedObjection: detectionId(
    await rows.aiDetection(tenant, debtId, {
      type: "objection",
      review_status: "rejected",
      created_at: new Date("2026-11-21T07:00:00Z"),
    }),
  ),
  suggestedDispute: detectionId(
    await rows.aiDetection(tenant, debtId, { type: "ai_dispute", created_at: new Date("2026-11-21T06:00:00Z") }),
  ),
};
describe("GET /todos filters", () => {
  const listed = async (query: string) => {
    const response = await t.get(`${LIST}${query}`, tenantToken);
    const body = await expectContract<Json>(response, "get", LIST);
    return {
      status: response.status,
      body,
      ids: response.status === 200 ? body.data.map((item: Json) => item.id) : [],
    };
  };

  it("lists suggested todos by default, one status, every status, one type", async () => {
    expect((await listed("")).ids).toEqual([made.suggestedPlan, made.suggestedDispute]);
    expect((await listed("?status=validated")).ids).toEqual([made.validatedDispute]);
    expect((await listed("?status=rejected")).ids).toEqual([made.rejectedObjection]);
    const all = await listed("?status=all");
    expect(all.ids).toEqual([made.suggestedPlan, made.validatedDispute, made.rejectedObjection, made.suggestedDispute]);
    expect(all.body.pagination).toEqual({ total: 4, page: 1, limit: 20, pages: 1 });
    expect((await listed("?status=all&type=objection")).ids).toEqual([made.rejectedObjection]);
    expect((await listed("?type=payment_plan")).ids).toEqual([made.suggestedPlan]);
    expect((await listed("?type=hardship")).ids).toEqual([]);
  });

  it("walks the filtered list by cursor", async () => {
    const first = await listed("?status=all&limit=3&cursor=");
    expect(first.ids).toEqual([made.suggestedPlan, made.validatedDispute, made.rejectedObjection]);
    const cursor = first.body.pagination.next_cursor as string;
    const second = await listed(`?status=all&limit=3&cursor=${encodeURIComponent(cursor)}`);
    expect(second.ids).toEqual([made.suggestedDispute]);
    expect(second.body.pagination.next_cursor).toBeNull();
    // A cursor is bound to its filters.
    expect((await listed(`?status=validated&limit=3&cursor=${encodeURIComponent(cursor)}`)).status).toBe(400);
  });

  it("answers 400 naming status or type for a value it does not know", async () => {
    const status = await listed("?status=open");
    expect(status.status).toBe(400);
    expect(status.body.details).toEqual({ status: "must be one of: suggested, validated, rejected, all" });
    const type = await listed("?type=dispute");
    expect(type.status).toBe(400);
    expect(type.body.details).toEqual({
      type: "must be one of: portal_dispute, hardship, payment_plan, ai_dispute, objection",
    });
  });
});
