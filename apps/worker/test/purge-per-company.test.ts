/**
 * The hourly purge keeps DESIGN.md 6's rule that no transaction spans two
 * companies: each transaction of the retention purge (webhook events,
 * staged uploads, snapshot bodies) and of the expired-credentials purge
 * (Idempotency-Key records included) writes the rows of one company only,
 * while a run still purges every company. A row trigger on every table the purge writes records, per
 * transaction, the companies whose rows it wrote.
 */
import { type Database } from "@dc/db";
import { useTestDatabase } from "@dc/testing";
import { type Kysely, sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { purgeRetained } from "../src/retention.ts";
import { purgeExpired } from "../src/tasks/purge-expired.ts";
import {
  hoursFrom,
  insertCode,
  insertGrant,
  insertIdempotencyKey,
  insertOwner,
  insertToken,
  type OauthOwner,
} from "./oauth-fixtures.ts";
import { type CampaignFixture, insertCampaign, insertSnapshot } from "./snapshot-fixtures.ts";
import { insertEndpoint } from "./webhooks-fixtures.ts";

const { db } = await useTestDatabase();

const now = new Date("2030-06-15T12:00:00.000Z");
const daysAgo = (days: number): Date => new Date(now.getTime() - days * 24 * 60 * 60 * 1000);

const audited = [
  "webhook_events",
  "webhook_deliveries",
  "webhook_delivery_attempts",
  "snapshots",
  "snapshot_chunks",
  "oauth_access_tokens",
  "oauth_refresh_tokens",
  "oauth_authorization_codes",
  "oauth_grants",
  "oauth_login_sessions",
  "idempotency_keys",
] as const;

/** Records (transaction, table, company) for every row written to the audited tables from now on. */
const auditWrites = async (database: Kysely<Database>): Promise<void> => {
  await sql`create table written_by_transaction (txid int8 not null, table_name text not null, company_id int8)`.execute(
    database,
  );
  await sql`
    create function record_written_company() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        insert into written_by_transaction values (txid_current(), tg_table_name, old.company_id);
      else
        insert into written_by_transaction values (txid_current(), tg_table_name, new.company_id);
      end if;
      return null;
    end $$`.execute(database);
  for (const table of audited) {
    await sql`create trigger ${sql.raw(`${table}_written_company`)} after insert or update or delete on ${sql.table(table)}
      for each row execute function record_written_company()`.execute(database);
  }
};

/** Transactions that wrote rows of more than one company, with the companies and tables. */
const crossCompanyTransactions = async () =>
  (
    await sql<{ companies: Array<string>; tables: Array<string> }>`
      select array_agg(distinct company_id::text order by company_id::text) as companies,
        array_agg(distinct table_name order by table_name) as tables
      from written_by_transaction group by txid having count(distinct company_id) > 1`.execute(db)
  ).rows;

const companiesWritten = async (table: string): Promise<Array<number>> =>
  (
    await sql<{ company_id: number }>`
      select distinct company_id from written_by_transaction where table_name = ${table} order by company_id`.execute(
      db,
    )
  ).rows.map((row) => Number(row.company_id));

const clearAudit = () => sql`delete from written_by_transaction`.execute(db);

/** What the retention purge has to do for one company: an old event, an idle upload, an old settled snapshot. */
const retainedOf = async (campaign: CampaignFixture): Promise<void> => {
  const endpoint = await insertEndpoint(db, campaign.companyId, "https://hooks.example.com/in");
  const old = daysAgo(45).toISOString();
  await sql`
    with e as (
      insert into webhook_events (company_id, public_id, type, payload, occurred_at, created_at)
      values (${campaign.companyId}, ${`evt_${campaign.companyId}_old`}, 'debt.updated', '{}', ${old}::timestamptz,
        ${old}::timestamptz)
      returning id, company_id, occurred_at
    ), d as (
      insert into webhook_deliveries (company_id, endpoint_id, event_id, event_occurred_at, status, attempt_count)
      select company_id, ${endpoint.id}, id, occurred_at, 'succeeded', 1 from e returning id, company_id
    )
    insert into webhook_delivery_attempts (company_id, delivery_id, attempted_at, status_code, duration_ms)
    select company_id, id, ${old}::timestamptz, 200, 3 from d`.execute(db);
  const rows = [[{ internal_id: "x", remaining_amount: 1, currency: "EUR" }]];
  const settled = await insertSnapshot(db, campaign, rows);
  await sql`update snapshots set status = 'completed', completed_at = ${daysAgo(91).toISOString()}::timestamptz
    where id = ${settled}`.execute(db);
  const idle = await insertSnapshot(db, campaign, rows);
  await sql`update snapshots set status = 'uploading', finalized_at = null, expected_row_count = 5,
    updated_at = ${daysAgo(8).toISOString()}::timestamptz where id = ${idle}`.execute(db);
};

/** Expired credentials of one company: a token and a code past their grace, a grant left with nothing. */
const expiredOf = async (owner: OauthOwner): Promise<void> => {
  const grant = await insertGrant(db, owner, hoursFrom(now, -240));
  await insertToken(db, "oauth_access_tokens", owner, grant, hoursFrom(now, -48));
  await insertToken(db, "oauth_refresh_tokens", owner, grant, hoursFrom(now, -48));
  await insertCode(db, owner, null, hoursFrom(now, -48));
  await db
    .insertInto("oauth_login_sessions")
    .values({
      company_id: owner.companyId,
      user_id: owner.userId,
      token_hash: Buffer.from(`session-${owner.companyId}`),
      expires_at: hoursFrom(now, -1),
    })
    .execute();
  await insertIdempotencyKey(db, owner.companyId, "expired", hoursFrom(now, -1));
};

describe("the hourly purge, one company per transaction", () => {
  beforeAll(async () => {
    await auditWrites(db);
  });

  it("purges every company's retained rows, each transaction writing one company's", async () => {
    const first = await insertCampaign(db);
    const second = await insertCampaign(db);
    await retainedOf(first);
    await retainedOf(second);
    await clearAudit();

    const counts = await purgeRetained(db, now, { webhookEventDays: 30, snapshotBodyDays: 90, stagedUploadDays: 7 });

    expect(counts).toMatchObject({
      webhook_events: 2,
      webhook_deliveries: 2,
      webhook_delivery_attempts: 2,
      staged_snapshots_expired: 2,
      staged_snapshot_events: 2,
      snapshot_chunk_bodies: 2,
      unfinished: false,
    });
    const both = [first.companyId, second.companyId].sort((a, b) => a - b);
    for (const table of ["webhook_events", "snapshots", "snapshot_chunks"]) {
      expect(await companiesWritten(table), table).toEqual(both);
    }
    expect(await crossCompanyTransactions()).toEqual([]);
  });

  it("purges every company's expired credentials, each transaction writing one company's", async () => {
    const first = await insertOwner(db);
    const second = await insertOwner(db);
    await expiredOf(first);
    await expiredOf(second);
    await clearAudit();

    const counts = await purgeExpired(db, now);

    expect(counts).toMatchObject({
      oauth_access_tokens: 2,
      oauth_refresh_tokens: 2,
      oauth_authorization_codes: 2,
      oauth_grants: 2,
      oauth_login_sessions: 2,
      idempotency_keys: 2,
    });
    const both = [first.companyId, second.companyId].sort((a, b) => a - b);
    for (const table of ["oauth_access_tokens", "oauth_grants", "oauth_login_sessions", "idempotency_keys"]) {
      expect(await companiesWritten(table), table).toEqual(both);
    }
    expect(await crossCompanyTransactions()).toEqual([]);
  });
});
