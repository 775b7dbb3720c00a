import { describe, expect, it } from "vitest";
import { periodStart } from "../src/routes/todos/period.ts";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";

// The manual clock stands at 2026-11-21T10:00:00Z: today is 2026-11-21, last month began 2026-10-01.
const t = await startTestApi();
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const token = await t.token(acme);
const at = (iso: string) => new Date(iso);

const STATS = "/external-api/v1/todos/stats";
const LIST = "/external-api/v1/todos";

const debt = () => rows.debt(acme);
const plan = async (
  status: "active" | "cancelled" | "completed",
  created: string,
  installments: Array<[string, "pending" | "paid"]>,
) =>
  rows.paymentPlan(
    acme,
    await debt(),
    { status, created_at: at(created) },
    installments.map(([payment_date, s]) => ({ payment_date, status: s })),
  );

await plan("active", "2026-11-20T10:00:00Z", [
  ["2026-11-21", "pending"],
  ["2026-12-01", "pending"],
]); // pending: due today is not late
await plan("active", "2026-11-10T10:00:00Z", [
  ["2026-11-01", "paid"],
  ["2026-11-15", "pending"],
]); // overdue
await plan("active", "2026-10-15T10:00:00Z", [["2026-10-20", "pending"]]); // overdue, nothing paid
await plan("active", "2026-10-05T10:00:00Z", [
  ["2026-10-10", "paid"],
  ["2026-12-10", "pending"],
]); // on track
await plan("cancelled", "2026-11-01T10:00:00Z", [["2026-11-05", "pending"]]);
await plan("active", "2026-09-01T10:00:00Z", [["2026-09-10", "pending"]]); // overdue, before the default period
await plan("completed", "2026-11-21T09:00:00Z", [["2026-11-21", "paid"]]); // today

const requestDebt = await debt();
const r1 = await rows.debtorRequest(acme, requestDebt, {
  type: "portal_dispute",
  blocking: true,
  message: "Never ordered",
  created_at: at("2026-11-20T10:00:00Z"),
});
await rows.debtorRequest(acme, requestDebt, {
  type: "portal_dispute",
  review_status: "validated",
  created_at: at("2026-11-01T10:00:00Z"),
});
const r3 = await rows.debtorRequest(acme, requestDebt, { type: "hardship", created_at: at("2026-10-20T10:00:00Z") });
await rows.debtorRequest(acme, requestDebt, {
  type: "payment_plan",
  review_status: "rejected",
  created_at: at("2026-11-21T08:00:00Z"),
});
await rows.debtorRequest(acme, requestDebt, {
  type: "portal_dispute",
  review_status: "rejected",
  blocking: true,
  created_at: at("2026-09-15T10:00:00Z"),
});
const sourceFollowup = await rows.followup(acme, requestDebt, { type: "call" });
const a1 = await rows.aiDetection(acme, requestDebt, {
  type: "ai_dispute",
  followup_id: sourceFollowup,
  excerpt: "I dispute this",
  created_at: at("2026-11-19T10:00:00Z"),
});
await rows.aiDetection(acme, requestDebt, {
  type: "ai_dispute",
  review_status: "validated",
  blocking: true,
  created_at: at("2026-10-02T10:00:00Z"),
});
const a3 = await rows.aiDetection(acme, requestDebt, { type: "objection", created_at: at("2026-11-18T10:00:00Z") });
await rows.aiDetection(acme, requestDebt, {
  type: "objection",
  review_status: "validated",
  created_at: at("2026-08-01T10:00:00Z"),
});

// Globex rows of every kind, all inside every period: none may be counted or listed for Acme.
const globexDebt = await rows.debt(globex);
await rows.paymentPlan(globex, globexDebt, { created_at: at("2026-11-21T09:30:00Z") }, [
  { payment_date: "2026-11-01", status: "pending" },
]);
const g1 = await rows.debtorRequest(globex, globexDebt, {
  type: "hardship",
  blocking: true,
  created_at: at("2026-11-21T09:30:00Z"),
});
const g2 = await rows.aiDetection(globex, globexDebt, { type: "ai_dispute", created_at: at("2026-11-21T09:30:00Z") });

const stats = async (query = "") => {
  const response = await t.get(`${STATS}${query}`, token);
  return { status: response.status, body: await expectContract(response, "get", STATS) };
};

describe("GET /todos/stats", () => {
  it("counts every key of 2.6 since last month by default", async () => {
    const { status, body } = await stats();
    expect(status).toBe(200);
    expect(body).toEqual({
      error: false,
      message: "Todo statistics retrieved successfully",
      data: {
        period: "since_last_month",
        since: "2026-10-01T00:00:00+00:00",
        stats: {
          agreements: { total: 6, active: 4, pending: 1, overdue: 2 },
          debtor_requests: { total: 4, by_type: { portal_dispute: 2, hardship: 1, payment_plan: 1 } },
          ai_detections: { total: 3, by_type: { ai_dispute: 2, objection: 1 } },
          blocking_disputes: { total: 2, by_status: { suggested: 1, validated: 1, rejected: 0 } },
          non_blocking_disputes: { total: 2, by_status: { suggested: 1, validated: 1, rejected: 0 } },
          total: { all: 13 },
        },
      },
    });
  });

  it("counts all time", async () => {
    const { body } = await stats("?period=all_time");
    expect(body.data.since).toBeNull();
    expect(body.data.stats).toEqual({
      agreements: { total: 7, active: 5, pending: 1, overdue: 3 },
      debtor_requests: { total: 5, by_type: { portal_dispute: 3, hardship: 1, payment_plan: 1 } },
      ai_detections: { total: 4, by_type: { ai_dispute: 2, objection: 2 } },
      blocking_disputes: { total: 3, by_status: { suggested: 1, validated: 1, rejected: 1 } },
      non_blocking_disputes: { total: 2, by_status: { suggested: 1, validated: 1, rejected: 0 } },
      total: { all: 16 },
    });
  });

  it("counts today and the rolling windows", async () => {
    const today = await stats("?period=today");
    expect(today.body.data.since).toBe("2026-11-21T00:00:00+00:00");
    expect(today.body.data.stats).toMatchObject({
      agreements: { total: 1, active: 0, pending: 0, overdue: 0 },
      debtor_requests: { total: 1, by_type: { portal_dispute: 0, hardship: 0, payment_plan: 1 } },
      ai_detections: { total: 0 },
      blocking_disputes: { total: 0 },
      total: { all: 2 },
    });
    const week = await stats("?period=last_7_days");
    expect(week.body.data.since).toBe("2026-11-14T10:00:00+00:00");
    expect(week.body.data.stats).toMatchObject({
      agreements: { total: 2, active: 1, pending: 1, overdue: 0 },
      debtor_requests: { total: 2 },
      ai_detections: { total: 2, by_type: { ai_dispute: 1, objection: 1 } },
      total: { all: 6 },
    });
    expect((await stats("?period=last_30_days")).body.data.stats.total.all).toBe(9);
    expect((await stats("?period=last_90_days")).body.data.stats.total.all).toBe(15);
  });

  it("answers 400 naming period for an unknown period", async () => {
    for (const query of ["?period=yesterday", "?period=", "?period=today&period=all_time"]) {
      const { status, body } = await stats(query);
      expect(status, query).toBe(400);
      expect(body).toMatchObject({ error: true, message: "Validation failed", code: 400 });
      expect(body.details, query).toEqual({
        period: "must be one of: today, last_7_days, since_last_month, last_30_days, last_90_days, all_time",
      });
    }
  });

  it("requires debts:read", async () => {
    const response = await t.get(STATS, await t.token(acme, "followups:read company:read"));
    expect(response.status).toBe(403);
    expect(await expectContract(response, "get", STATS)).toEqual({
      error: true,
      message: 'Required scope "debts:read" not found in token',
      code: 403,
    });
  });
});

// A company of its own for the window edges: for each period's start, one row of each kind at the start and one
// a millisecond before it. Each window must count exactly the edges at or after its start (an oracle on the
// timestamps, independent of period.ts), and the dispute keys must be views of the same request and detection rows.
const edges = await t.tenant("Period Edges");
const edgesToken = await t.token(edges);
const starts = {
  today: "2026-11-21T00:00:00Z",
  last_7_days: "2026-11-14T10:00:00Z",
  since_last_month: "2026-10-01T00:00:00Z",
  last_30_days: "2026-10-22T10:00:00Z",
  last_90_days: "2026-08-23T10:00:00Z",
} as const;
const reviewStatuses = ["suggested", "validated", "rejected"] as const;
const edgeTimes = Object.values(starts).flatMap((start) => [at(start), new Date(at(start).getTime() - 1)]);
const edgeDebt = await rows.debt(edges);
for (const [i, created_at] of edgeTimes.entries()) {
  const review_status = reviewStatuses[i % 3]!;
  await rows.paymentPlan(edges, await rows.debt(edges), { created_at }, [
    { payment_date: "2027-06-01", status: "pending" },
  ]);
  await rows.debtorRequest(edges, edgeDebt, { type: "portal_dispute", blocking: true, review_status, created_at });
  await rows.aiDetection(edges, edgeDebt, { type: "ai_dispute", blocking: false, review_status, created_at });
}

describe("GET /todos/stats periods on their edges", () => {
  const expected = (since: Date | null) => {
    const counted = edgeTimes.flatMap((time, i) => (since === null || time >= since ? [reviewStatuses[i % 3]!] : []));
    const n = counted.length;
    const byStatus = Object.fromEntries(
      reviewStatuses.map((status) => [status, counted.filter((s) => s === status).length]),
    );
    return {
      agreements: { total: n, active: n, pending: n, overdue: 0 },
      debtor_requests: { total: n, by_type: { portal_dispute: n, hardship: 0, payment_plan: 0 } },
      ai_detections: { total: n, by_type: { ai_dispute: n, objection: 0 } },
      blocking_disputes: { total: n, by_status: byStatus },
      non_blocking_disputes: { total: n, by_status: byStatus },
      total: { all: 3 * n },
    };
  };

  it.each(Object.entries(starts))("%s counts the rows from %s on, none before", async (period, start) => {
    const response = await t.get(`${STATS}?period=${period}`, edgesToken);
    expect(response.status).toBe(200);
    const body = await expectContract(response, "get", STATS);
    expect(body.data.since).toBe(start.replace("Z", "+00:00"));
    const stats = expected(at(start));
    expect(stats.total.all).toBeGreaterThan(0);
    expect(stats.total.all).toBeLessThan(3 * edgeTimes.length);
    expect(body.data.stats).toEqual(stats);
  });

  it("all_time counts every row", async () => {
    const body = await expectContract(await t.get(`${STATS}?period=all_time`, edgesToken), "get", STATS);
    expect(body.data.since).toBeNull();
    expect(body.data.stats).toEqual(expected(null));
    expect(body.data.stats.total.all).toBe(3 * edgeTimes.length);
  });
});

describe("todo periods", () => {
  it("start last month in the previous year in January, and at midnight UTC today", () => {
    expect(periodStart("since_last_month", at("2027-01-15T12:00:00Z"))).toEqual(at("2026-12-01T00:00:00Z"));
    expect(periodStart("since_last_month", at("2026-03-31T23:59:59Z"))).toEqual(at("2026-02-01T00:00:00Z"));
    expect(periodStart("today", at("2026-03-31T23:59:59Z"))).toEqual(at("2026-03-31T00:00:00Z"));
    expect(periodStart("last_30_days", at("2026-03-31T00:00:00Z"))).toEqual(at("2026-03-01T00:00:00Z"));
    expect(periodStart("all_time", at("2026-03-31T00:00:00Z"))).toBeNull();
  });
});

describe("GET /todos", () => {
  const expectedOrder = [
    ids.encode("debtor_request", r1),
    ids.encode("ai_detection", a1),
    ids.encode("ai_detection", a3),
    ids.encode("debtor_request", r3),
  ];

  it("lists requests and detections awaiting review, newest first, never another company's", async () => {
    const response = await t.get(LIST, token);
    expect(response.status).toBe(200);
    const body = await expectContract(response, "get", LIST);
    expect(body.pagination).toEqual({ total: 4, page: 1, limit: 20, pages: 1 });
    expect(body.data.map((item: { id: string }) => item.id)).toEqual(expectedOrder);
    expect(body.data[0]).toEqual({
      id: ids.encode("debtor_request", r1),
      source: "debtor_request",
      type: "portal_dispute",
      review_status: "suggested",
      blocking: true,
      debt_id: ids.encode("debt", requestDebt),
      followup_id: null,
      message: "Never ordered",
      content: {},
      attachment: null,
      note: null,
      created_at: "2026-11-20T10:00:00+00:00",
      reviewed_at: null,
    });
    expect(body.data[1]).toEqual({
      id: ids.encode("ai_detection", a1),
      source: "ai_detection",
      type: "ai_dispute",
      review_status: "suggested",
      blocking: false,
      debt_id: ids.encode("debt", requestDebt),
      followup_id: ids.encode("followup", sourceFollowup),
      message: "I dispute this",
      content: null,
      attachment: null,
      note: null,
      created_at: "2026-11-19T10:00:00+00:00",
      reviewed_at: null,
    });
    const listed = body.data.map((item: { id: string }) => item.id);
    expect(listed).not.toContain(ids.encode("debtor_request", g1));
    expect(listed).not.toContain(ids.encode("ai_detection", g2));
  });

  it("paginates and validates page and limit", async () => {
    const page2 = await expectContract(await t.get(`${LIST}?limit=3&page=2`, token), "get", LIST);
    expect(page2.data.map((item: { id: string }) => item.id)).toEqual(expectedOrder.slice(3));
    expect(page2.pagination).toEqual({ total: 4, page: 2, limit: 3, pages: 2 });
    const past = await expectContract(await t.get(`${LIST}?limit=3&page=3`, token), "get", LIST);
    expect(past.data).toEqual([]);
    const bad = await t.get(`${LIST}?page=zero`, token);
    expect(bad.status).toBe(400);
    expect(Object.keys((await expectContract(bad, "get", LIST)).details)).toEqual(["page"]);
  });

  it("requires debts:read", async () => {
    const response = await t.get(LIST, await t.token(acme, "debts:write"));
    expect(response.status).toBe(403);
    expect((await expectContract(response, "get", LIST)).message).toBe(
      'Required scope "debts:read" not found in token',
    );
  });
});
