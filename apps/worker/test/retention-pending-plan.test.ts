/**
 * The cost of a retention batch (docs/decisions/0021) must not grow with the
 * product of its events and the pending deliveries, whatever the statistics
 * say: its plan is read with EXPLAIN (a plan, not a timing, is asserted). Its own file, so
 * its database holds only what the test writes and ANALYZE sees exactly the
 * state described.
 */
import { purgeableEvents, purgeWebhookEventsBatch, withPurgeablePlan } from "@dc/db";
import { useTestDatabase } from "@dc/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { insertCompany, insertEndpoint } from "./webhooks-fixtures.ts";

const { db } = await useTestDatabase();

const now = new Date("2030-06-15T12:00:00.000Z");
const daysAgo = (days: number): Date => new Date(now.getTime() - days * 24 * 60 * 60 * 1000);

describe("purgeWebhookEventsBatch with many pending deliveries", () => {
  it("checks pending deliveries without a nested loop, even when the statistics predate them", async () => {
    // An endpoint's outage piles up pending deliveries of recent events between two ANALYZEs (autoanalyze of a
    // table holding 30 days of deliveries runs rarely). With statistics that saw no pending delivery, the batch
    // compared every examined event with every pending delivery (a nested loop over all of them, materialised):
    // 2,000 x 20,000 comparisons, seconds per batch while it holds 2,000 events locked `for update`.
    const companyId = await insertCompany(db, "Pending pile-up");
    const endpoint = await insertEndpoint(db, companyId, "https://hooks.example.com/in");
    const down = await insertEndpoint(db, companyId, "https://hooks.example.com/down");
    const old = daysAgo(45).toISOString();
    const recent = daysAgo(1).toISOString();
    await sql`alter table webhook_deliveries set (autovacuum_enabled = false)`.execute(db);
    await sql`alter table webhook_events set (autovacuum_enabled = false)`.execute(db);
    await sql`
      with e as (
        insert into webhook_events (company_id, public_id, type, payload, occurred_at, created_at)
        select ${companyId}, 'evt_' || md5('pile-' || n), 'debt.updated', '{}', at, at
        from generate_series(1, 30000) n,
          lateral (select case when n <= 10000 then ${old}::timestamptz else ${recent}::timestamptz end as at) a
        returning id, occurred_at
      )
      insert into webhook_deliveries (company_id, endpoint_id, event_id, event_occurred_at, status, attempt_count)
      select ${companyId}, ${endpoint.id}, e.id, e.occurred_at, 'succeeded', 1 from e`.execute(db);
    await sql`analyze webhook_events`.execute(db);
    await sql`analyze webhook_deliveries`.execute(db);
    // The outage: every recent event has a pending delivery to the endpoint that is down.
    await sql`insert into webhook_deliveries (company_id, endpoint_id, event_id, event_occurred_at)
      select company_id, ${down.id}, id, occurred_at from webhook_events
      where company_id = ${companyId} and created_at = ${recent}::timestamptz`.execute(db);

    // The plan the batch runs, read with EXPLAIN through the same pin: no node may loop over the deliveries.
    const plan = await db.transaction().execute((trx) =>
      withPurgeablePlan(trx, async () => {
        const { rows } = await sql<{ "QUERY PLAN": unknown }>`explain (format json) ${purgeableEvents({
          cutoff: daysAgo(30),
          limit: 2_000,
        })}`.execute(trx);
        return JSON.stringify(rows[0]?.["QUERY PLAN"]);
      }),
    );
    expect(plan).toContain("webhook_deliveries");
    expect(plan).not.toContain('"Node Type":"Nested Loop"');

    const batch = await purgeWebhookEventsBatch(db, { cutoff: daysAgo(30), limit: 2_000 });
    expect(batch.events).toBe(2_000);
    expect(batch.deliveries).toBe(2_000);
  });
});
