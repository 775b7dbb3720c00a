/**
 * Deleting an OAuth client clears `integration_client_pk` on its payments
 * (a per-statement trigger, migration 0010) and its snapshots (a foreign
 * key's `on delete set null`) through an index (migration 0021): it reads
 * no other client's rows, in no company.
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../testing/index.ts";
import { returnedId } from "./support/reference-checks.ts";

const { db } = await useTestDatabase();

const one = (query: ReturnType<typeof sql<{ id: number }>>) => returnedId(db, query);

/** A company with an OAuth client and a campaign, and `payments` payments and `snapshots` snapshots of that client. */
const companyWithClient = async (name: string, rows: { payments: number; snapshots: number }) => {
  const companyId = await one(sql`insert into companies (name) values (${name}) returning id`);
  const clientPk = await one(sql`
    insert into oauth_clients (company_id, client_id, name, secret_hash, allowed_scopes)
    values (${companyId}, ${`client-${companyId}`}, 'Books', 'x', '{}') returning id`);
  const creditorId = await one(sql`insert into creditors (company_id, name) values (${companyId}, 'C') returning id`);
  const timelineId = await one(sql`insert into timelines (company_id, name) values (${companyId}, 'T') returning id`);
  const campaignId = await one(sql`
    insert into campaigns (company_id, api_reference, name, creditor_id, timeline_id)
    values (${companyId}, 'books', 'Books', ${creditorId}, ${timelineId}) returning id`);
  await sql`
    insert into payments (company_id, debt_id, integration_client_pk, provider, kind, amount_minor, currency, status, paid_at)
    select ${companyId}, n, ${clientPk}::int8, 'snapshot', 'balance_delta', 100, 'EUR', 'succeeded', now()
    from generate_series(1, ${rows.payments}) as n`.execute(db);
  await sql`
    insert into snapshots (company_id, campaign_id, snapshot_reference, delivery_mode, status, expected_row_count,
      integration_client_pk)
    select ${companyId}, ${campaignId}, 'books-' || n, 'one_request', 'completed', 1, ${clientPk}::int8
    from generate_series(1, ${rows.snapshots}) as n`.execute(db);
  return { companyId, clientPk };
};

const clientRows = async (clientPk: number) => {
  const { rows } = await sql<{ payments: number; snapshots: number }>`
    select (select count(*)::int4 from payments where integration_client_pk = ${clientPk}) as payments,
      (select count(*)::int4 from snapshots where integration_client_pk = ${clientPk}) as snapshots`.execute(db);
  return rows[0];
};

describe("deleting an OAuth client", () => {
  it("clears its payments' and snapshots' client through an index, scanning neither table", async () => {
    // Enough rows of another company's client that reading the whole tables is never the cheaper plan.
    const other = await companyWithClient("Large", { payments: 20_000, snapshots: 2_000 });
    const deleted = await companyWithClient("Small", { payments: 10, snapshots: 2 });
    await sql`analyze payments, snapshots`.execute(db);

    const scans = await db.transaction().execute(async (trx) => {
      // This transaction's own counts, read before its commit: no statistics collector involved.
      const read = async () => {
        const { rows } = await sql<{ table: string; seq_scan: number }>`
          select relname as table, seq_scan::int4 as seq_scan from pg_stat_xact_user_tables
          where relname in ('payments', 'snapshots') order by relname`.execute(trx);
        return rows;
      };
      const before = await read();
      await sql`delete from oauth_clients where id = ${deleted.clientPk}`.execute(trx);
      return { before, after: await read() };
    });

    expect(scans.after).toEqual(scans.before);
    expect(await clientRows(deleted.clientPk)).toEqual({ payments: 0, snapshots: 0 });
    const { rows } = await sql<{ payments: number; snapshots: number }>`
      select (select count(*)::int4 from payments where company_id = ${deleted.companyId} and integration_client_pk is null)
          as payments,
        (select count(*)::int4 from snapshots where company_id = ${deleted.companyId} and integration_client_pk is null)
          as snapshots`.execute(db);
    expect(rows[0]).toEqual({ payments: 10, snapshots: 2 });
    expect(await clientRows(other.clientPk)).toEqual({ payments: 20_000, snapshots: 2_000 });
  });
});
