/**
 * Applying stays linear when PostgreSQL's statistics know nothing of the
 * campaign (docs/decisions/0363): a new campaign's debts sit below
 * autovacuum's analyze threshold for a long time, and with an estimate of
 * one row the planner nested-looped another campaign's active plans over
 * all of this campaign's debts. The work is read from the executed plans
 * (auto_explain), in rows, not in time.
 */
import { createPool, type Database } from "@dc/db";
import { useTestDatabase } from "@dc/testing";
import { Kysely, PostgresDialect, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { applySnapshot } from "../src/snapshots/apply-snapshot.ts";
import {
  accountRow,
  type CampaignFixture,
  insertCampaign,
  insertSnapshot,
  snapshotKey,
  testIds, testLinks,
} from "./snapshot-fixtures.ts";

const { db, url } = await useTestDatabase();
const now = new Date("2030-06-15T12:00:00.000Z");

interface PlanNode {
  readonly "Node Type": string;
  readonly "Actual Rows"?: number;
  readonly "Actual Loops"?: number;
  readonly "Rows Removed by Join Filter"?: number;
  readonly "Rows Removed by Filter"?: number;
  readonly Plans?: ReadonlyArray<PlanNode>;
}

/** Rows produced or discarded by every node of a plan, each counted once per loop. */
const rowsTouched = (node: PlanNode): number => {
  const loops = node["Actual Loops"] ?? 1;
  const own =
    (node["Actual Rows"] ?? 0) * loops +
    (node["Rows Removed by Join Filter"] ?? 0) +
    (node["Rows Removed by Filter"] ?? 0) * loops;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsTouched(child), 0);
};

/**
 * A database handle whose statements (nested ones included) report their
 * executed plans; with `genericPlans`, PL/pgSQL plans are generic from
 * their first run, as they become after five runs in a long-lived session.
 */
const explaining = ({ genericPlans = false } = {}) => {
  const plans: Array<{ query: string; rows: number }> = [];
  const pool = createPool({ connectionString: url, max: 2 });
  pool.on("connect", (client) => {
    client.on("notice", (notice) => {
      const text = String(notice.message ?? "");
      const start = text.indexOf("{");
      if (start < 0) return;
      const parsed = JSON.parse(text.slice(start)) as { "Query Text": string; Plan: PlanNode };
      plans.push({ query: parsed["Query Text"], rows: rowsTouched(parsed.Plan) });
    });
    void client.query(`load 'auto_explain';
      set auto_explain.log_min_duration = 0; set auto_explain.log_analyze = on; set auto_explain.log_timing = off;
      set auto_explain.log_format = json; set auto_explain.log_level = notice; set auto_explain.log_nested_statements = on;
      ${genericPlans ? "set plan_cache_mode = force_generic_plan;" : ""}`);
  });
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), plans };
};

const applyRows = async (on: Kysely<Database>, campaign: CampaignFixture, rows: ReadonlyArray<unknown>) => {
  const id = await insertSnapshot(db, campaign, [rows]);
  const outcome = await applySnapshot({ db: on, clock: fixedClock(now), ids: testIds, links: testLinks }, snapshotKey(id));
  if (outcome.outcome !== "completed") throw new Error(`not completed: ${JSON.stringify(outcome)}`);
};

const withPlan = (id: string, amount: number) =>
  accountRow(id, amount, {
    payment_plan: {
      external_reference: `plan-${id}`,
      status: "active",
      installments: [{ external_reference: "1", amount, payment_date: "2031-01-01", status: "pending" }],
    },
  });

/** A row whose plan has a paid installment (a payment naming it) and a pending one. */
const withPaidPlan = (id: string, amount: number) =>
  accountRow(id, amount, {
    payment_plan: {
      external_reference: `plan-${id}`,
      status: "active",
      installments: [
        {
          external_reference: "1",
          amount: 5,
          payment_date: "2030-01-01",
          status: "paid",
          paid_at: "2030-01-02T00:00:00Z",
          external_payment_id: `pay-${id}`,
        },
        { external_reference: "2", amount, payment_date: "2031-01-01", status: "pending" },
      ],
    },
  });

describe("applySnapshot with statistics that predate the campaign", () => {
  const observed = explaining();
  afterAll(() => observed.db.destroy());

  it("does work proportional to the campaign, not to the product of two campaigns", async () => {
    for (const table of ["debts", "payment_plans", "installments"]) {
      await sql`alter table ${sql.table(table)} set (autovacuum_enabled = off)`.execute(db);
    }
    // Statistics taken before the company had any debt, as for a new tenant on a large database.
    const other = await insertCampaign(db);
    await sql`analyze debts, payment_plans, installments`.execute(db);
    // Another campaign of the company: 600 debts, each with an active plan.
    await applyRows(db, other, Array.from({ length: 600 }, (_, i) => withPlan(`other-${i}`, 50)));
    const { rows } = await sql<{ id: number }>`
      insert into campaigns (company_id, api_reference, name, creditor_id, timeline_id)
      values (${other.companyId}, 'second', 'Second', ${other.creditorId}, ${other.timelineId}) returning id`.execute(db);
    const campaign: CampaignFixture = { ...other, campaignId: Number(rows[0]?.id) };
    // This campaign's 2,000 debts arrive after the statistics: PostgreSQL believes it has none.
    await applyRows(db, campaign, Array.from({ length: 2_000 }, (_, i) => accountRow(`acc-${i}`, 100)));

    await applyRows(observed.db, campaign, Array.from({ length: 2_000 }, (_, i) => accountRow(`acc-${i}`, 90)));

    const loadPlans = observed.plans.find((plan) => plan.query.includes("from payment_plans p"));
    expect(loadPlans).toBeDefined();
    // Linear: a few rows per debt. The nested loop compared 600 plans x 2,000 debts (1.2 million rows).
    const quadratic = observed.plans.filter((plan) => plan.rows >= 60_000);
    expect(quadratic.map((plan) => ({ query: plan.query.trim().slice(0, 60), rows: plan.rows }))).toEqual([]);
  });

  it("updates the debts a snapshot changes, and marks their followups, by key, reading none of the others", async () => {
    // Statistics taken before the company had any debt; then a campaign of 2,000 debts they know nothing of.
    const campaign = await insertCampaign(db);
    await sql`analyze debts`.execute(db);
    const balances = (changed: number) =>
      Array.from({ length: 2_000 }, (_, i) => accountRow(`acc-${i}`, i < changed ? 70 : 100));
    await applyRows(db, campaign, balances(0));
    // A click an hour before the snapshot on 5 of the 20 debts whose balance falls: 5 followups to mark.
    await sql`
      insert into email_clicks (company_id, followup_id, debt_id, clicked_at)
      select f.company_id, f.id, f.debt_id, ${new Date(now.getTime() - 3600_000)}::timestamptz
      from followups f join debts d on d.company_id = f.company_id and d.id = f.debt_id
      where d.campaign_id = ${campaign.campaignId} and d.internal_id in ('acc-0', 'acc-1', 'acc-2', 'acc-3', 'acc-4')
    `.execute(db);
    const probing = explaining();
    try {
      await applyRows(probing.db, campaign, balances(20));
    } finally {
      await probing.db.destroy();
    }
    const { rows: marked } = await sql<{ count: number }>`
      select count(*)::int as count from followups f join debts d on d.company_id = f.company_id and d.id = f.debt_id
      where d.campaign_id = ${campaign.campaignId} and f.triggered_payment`.execute(db);
    expect(marked[0]?.count).toBe(5);
    const updates = probing.plans.filter((plan) => /^\s*update debts d set/.test(plan.query));
    // 20 changes: 20 from the changes' arrays and 20 probes. A hash join over the campaign reads its 2,000 debts.
    expect(updates.map((plan) => plan.rows)).toEqual([expect.any(Number)]);
    expect(updates[0]?.rows).toBeLessThanOrEqual(60);
    // The 20 payments, then their clicks and calls, probed per payment, then the 5 followups to mark by key
    // (about 130 rows). A hash join reads the company's 2,000 followups, to find the payments or to mark.
    const marking = probing.plans.filter((plan) => plan.query.includes("update followups f set triggered_payment"));
    expect(marking.map((plan) => plan.rows)).toEqual([expect.any(Number)]);
    expect(marking[0]?.rows).toBeLessThanOrEqual(200);
  });

  it("checks the plans, installments and payments it writes by key, whatever the size of their parent tables", async () => {
    // Another company's 3,000 plans fill the parent tables (6,000 installments).
    await applyRows(db, await insertCampaign(db), Array.from({ length: 3_000 }, (_, i) => withPaidPlan(`other-${i}`, 50)));
    const campaign = await insertCampaign(db);
    await applyRows(db, campaign, Array.from({ length: 500 }, (_, i) => accountRow(`acc-${i}`, 100)));
    const generic = explaining({ genericPlans: true });
    try {
      await applyRows(generic.db, campaign, Array.from({ length: 500 }, (_, i) => withPaidPlan(`acc-${i}`, 90)));
    } finally {
      await generic.db.destroy();
    }
    // PostgreSQL's foreign-key checks: one `select 1 from only <parent> ... for key share of x` per written row.
    const checks = generic.plans.filter((plan) => /FOR KEY SHARE OF x/.test(plan.query));
    const parents = new Set(checks.map((plan) => /FROM ONLY "public"\."(\w+)"/.exec(plan.query)?.[1]));
    // Plans name debts, installments plans, payments installments: each of them was checked.
    expect([...parents].sort()).toEqual(expect.arrayContaining(["debts", "installments", "payment_plans"]));
    // By key: a row or two per check. A scan of a parent table reads its 6,000+ rows.
    expect(checks.filter((plan) => plan.rows > 10).map((plan) => plan.query.trim().slice(0, 100))).toEqual([]);
  });
});
