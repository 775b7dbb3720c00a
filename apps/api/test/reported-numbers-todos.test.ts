/**
 * `GET /todos/stats` against the rows, for every period of decision 0156 at
 * its boundaries: in each period's company, one row of every kind created
 * exactly at the period's start and one a microsecond before it. Plans,
 * debtor requests and AI detections are the platform's rows (snapshots, the
 * debtor portal, the AI), so they are inserted directly; the expected numbers
 * are counted here by plain SQL.
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi, TEST_START } from "./support/harness.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);

const STATS = "/external-api/v1/todos/stats";

// The manual clock stands at TEST_START, 2026-11-21T10:00:00Z.
const starts = {
  today: "2026-11-21T00:00:00Z",
  last_7_days: "2026-11-14T10:00:00Z",
  last_30_days: "2026-10-22T10:00:00Z",
  last_90_days: "2026-08-23T10:00:00Z",
  since_last_month: "2026-10-01T00:00:00Z",
} as const;

/** The instant a microsecond before `iso`, as PostgreSQL text. */
const justBefore = async (iso: string): Promise<Date> =>
  (await sql<{ at: Date }>`select ${iso}::timestamptz - interval '1 microsecond' as at`.execute(t.db)).rows[0]!.at;

/** Every key of 2.6 counted from the rows of `companyKey` created at or after `since`. */
const expected = async (companyKey: number, since: string | null, today: string) => {
  const from = since === null ? sql`true` : sql`created_at >= ${since}::timestamptz`;
  const n = async (query: ReturnType<typeof sql<{ n: string }>>) => Number((await query.execute(t.db)).rows[0]!.n);
  const plans = (where: ReturnType<typeof sql>) =>
    n(
      sql<{
        n: string;
      }>`select count(*)::text as n from payment_plans p where company_id = ${companyKey} and ${from} and ${where}`,
    );
  const overdue = sql`exists (select 1 from installments i where i.payment_plan_id = p.id and i.status = 'pending' and i.payment_date < ${today}::date)`;
  const paid = sql`exists (select 1 from installments i where i.payment_plan_id = p.id and i.status = 'paid')`;
  const requests = (where: ReturnType<typeof sql>) =>
    n(
      sql<{
        n: string;
      }>`select count(*)::text as n from debtor_requests where company_id = ${companyKey} and ${from} and ${where}`,
    );
  const detections = (where: ReturnType<typeof sql>) =>
    n(
      sql<{
        n: string;
      }>`select count(*)::text as n from ai_detections where company_id = ${companyKey} and ${from} and ${where}`,
    );
  const disputes = async (blocking: boolean) => {
    const by = async (status: string) =>
      (await requests(sql`type = 'portal_dispute' and blocking = ${blocking} and review_status = ${status}`)) +
      (await detections(sql`type = 'ai_dispute' and blocking = ${blocking} and review_status = ${status}`));
    const byStatus = {
      suggested: await by("suggested"),
      validated: await by("validated"),
      rejected: await by("rejected"),
    };
    return { total: byStatus.suggested + byStatus.validated + byStatus.rejected, by_status: byStatus };
  };
  const agreements = {
    total: await plans(sql`true`),
    active: await plans(sql`status = 'active'`),
    pending: await plans(sql`status = 'active' and not ${paid} and not ${overdue}`),
    overdue: await plans(sql`status = 'active' and ${overdue}`),
  };
  const debtorRequests = {
    total: await requests(sql`true`),
    by_type: {
      portal_dispute: await requests(sql`type = 'portal_dispute'`),
      hardship: await requests(sql`type = 'hardship'`),
      payment_plan: await requests(sql`type = 'payment_plan'`),
    },
  };
  const aiDetections = {
    total: await detections(sql`true`),
    by_type: {
      ai_dispute: await detections(sql`type = 'ai_dispute'`),
      objection: await detections(sql`type = 'objection'`),
    },
  };
  return {
    agreements,
    debtor_requests: debtorRequests,
    ai_detections: aiDetections,
    blocking_disputes: await disputes(true),
    non_blocking_disputes: await disputes(false),
    total: { all: agreements.total + debtorRequests.total + aiDetections.total },
  };
};

/** One row of every kind created at `at`: plans in each state, requests and detections of each type and status. */
const rowsAt = async (tenant: Awaited<ReturnType<typeof t.tenant>>, at: Date) => {
  const debt = async () => rows.debt(tenant);
  await rows.paymentPlan(tenant, await debt(), { created_at: at }, [{ payment_date: "2026-11-20", status: "pending" }]);
  await rows.paymentPlan(tenant, await debt(), { created_at: at }, [{ payment_date: "2026-11-21", status: "pending" }]);
  await rows.paymentPlan(tenant, await debt(), { created_at: at }, [
    { payment_date: "2026-11-01", status: "paid" },
    { payment_date: "2026-12-01", status: "pending" },
  ]);
  await rows.paymentPlan(tenant, await debt(), { created_at: at }, []);
  await rows.paymentPlan(tenant, await debt(), { status: "cancelled", created_at: at }, [
    { payment_date: "2026-11-01", status: "pending" },
  ]);
  const reviewed = await debt();
  for (const type of ["portal_dispute", "hardship", "payment_plan"] as const) {
    for (const review_status of ["suggested", "validated", "rejected"] as const) {
      for (const blocking of [true, false]) {
        await rows.debtorRequest(tenant, reviewed, { type, review_status, blocking, created_at: at });
      }
    }
  }
  for (const type of ["ai_dispute", "objection"] as const) {
    for (const review_status of ["suggested", "validated", "rejected"] as const) {
      for (const blocking of [true, false]) {
        await rows.aiDetection(tenant, reviewed, { type, review_status, blocking, created_at: at });
      }
    }
  }
};

describe("GET /todos/stats against the rows at each period's boundaries", () => {
  for (const [period, start] of Object.entries(starts)) {
    it(`${period}: counts the rows created exactly at ${start}, not those a microsecond before`, async () => {
      const tenant = await t.tenant(`Todo ${period}`);
      const companyKey = ids.decode("company", tenant.company_id)!;
      await rowsAt(tenant, new Date(start));
      await rowsAt(tenant, await justBefore(start));
      const response = await t.get(`${STATS}?period=${period}`, await t.token(tenant));
      const body = await expectContract<{ data: { since: string; stats: unknown } }>(response, "get", STATS);
      expect(new Date(body.data.since)).toEqual(new Date(start));
      const counted = await expected(companyKey, start, TEST_START.toISOString().slice(0, 10));
      expect(body.data.stats).toEqual(counted);
      // Half the rows are in the period: every count is that of one set of rows.
      expect(counted.total.all).toBe(5 + 18 + 12);
      const all = await expectContract<{ data: { stats: unknown } }>(
        await t.get(`${STATS}?period=all_time`, await t.token(tenant)),
        "get",
        STATS,
      );
      expect(all.data.stats).toEqual(await expected(companyKey, null, TEST_START.toISOString().slice(0, 10)));
    });
  }
});
