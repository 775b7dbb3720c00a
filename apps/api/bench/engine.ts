/**
 * Benchmark of the collection engine (issue 26; figures in
 * docs/benchmarks.md, "Collection engine"). Not a test: nothing is asserted.
 *
 * (b) 100,000 debts of a live company enrolled on a timeline whose day-0
 *     step is an e-mail, all due at the moment the worker starts: the time
 *     until every one is sent through the sandbox provider, actions/s, the
 *     lateness of each send (the provider's record minus the due time, p50
 *     and p99), and meanwhile `GET /debts?limit=20` against the api (one
 *     client, back to back: p50 and p99).
 * (d) the worker's resident memory during (b), sampled every 250 ms.
 * (c) 1,000,000 debts enrolled with nothing due: the time of one live sweep
 *     (median and max of 50, in this process, with the worker's code), and
 *     the jobs in graphile-worker's queue.
 *
 * The api runs as deployed (apps/api/src/main.ts, production mode); the
 * worker is apps/worker/bench/engine-worker.ts, `startWorker` as deployed
 * with the sandbox provider for every company.
 *
 *   node apps/api/bench/engine.ts                      # embedded PostgreSQL
 *   BENCH_DATABASE_URL=postgres://... node apps/api/bench/engine.ts
 *   BENCH_ENGINE_DEBTS=100000 BENCH_ENGINE_IDLE_DEBTS=1000000 node apps/api/bench/engine.ts
 */
import { availableParallelism, loadavg } from "node:os";
import { enrollDebts, insertTimelineVersion, makeIds } from "@dc/db";
import { sql } from "kysely";
import { pino } from "pino";
import { systemClock } from "@dc/runtime";
import { WORKER_NODE_OPTIONS } from "../../worker/src/runtime.ts";
import { DEVELOPMENT_PUBLIC_BASE_URL } from "../../worker/src/config.ts";
import { DEFAULT_ENGINE_SETTINGS } from "../../worker/src/engine/engine-settings.ts";
import { sweepLive } from "../../worker/src/engine/live-sweep.ts";
import { createTenant } from "../src/admin/tenants.ts";
import {
  fetchToken,
  freePort,
  rssOf,
  startApiService,
  startBenchDatabase,
  startService,
  waitForLine,
} from "./processes.ts";

const ID_KEY = "bench-only-id-encryption-key-of-at-least-32-bytes";
const DEBTS = Number(process.env["BENCH_ENGINE_DEBTS"] ?? 100_000);
const IDLE_DEBTS = Number(process.env["BENCH_ENGINE_IDLE_DEBTS"] ?? 1_000_000);
const ENROLL_CHUNK = 20_000;
const ids = makeIds(new TextEncoder().encode(ID_KEY));
const hhmm = (date: Date) => date.toISOString().slice(11, 16);
const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const log = (line: string) => process.stdout.write(`${line}\n`);

const database = await startBenchDatabase();
const { db } = database;
const lines: string[] = [];
try {
  // A live company whose timeline sends at any hour now: UTC, every weekday, a window around now, quiet hours 12 h away.
  const now = new Date();
  const tenant = await createTenant(db, ids, "Engine Bench");
  const companyId = ids.decode("company", tenant.company_id)!;
  const timelineId = ids.decode("timeline", tenant.timeline_id)!;
  const creditorId = ids.decode("creditor", tenant.creditor_id)!;
  const quietStart = new Date(now.getTime() + 11 * 3_600_000);
  await db
    .updateTable("companies")
    .set({
      time_zone: "UTC",
      current_credits: 1_000_000,
      engine_settings: JSON.stringify({
        quiet_hours: { start: hhmm(quietStart), end: hhmm(new Date(quietStart.getTime() + 3_600_000)) },
      }),
    })
    .where("id", "=", companyId)
    .execute();
  await db.transaction().execute((trx) =>
    insertTimelineVersion(trx, {
      companyId,
      timelineId,
      now,
      definition: {
        scheduling: {
          time_zone: "UTC",
          weekdays: [1, 2, 3, 4, 5, 6, 7],
          window: {
            start: hhmm(new Date(now.getTime() - 3_600_000)),
            end: hhmm(new Date(now.getTime() + 6 * 3_600_000)),
          },
        },
        steps: [
          {
            day_offset: 0,
            channel: "email",
            configuration: {},
            content: { subject: "Invoice {{ invoice_reference }}" },
          },
          { day_offset: 3, channel: "email", configuration: {}, content: {} },
        ],
      },
    }),
  );

  const seedDebts = async (count: number, startMode: string | null, dueDate: string | null): Promise<number> => {
    const started = performance.now();
    for (let offset = 0; offset < count; offset += ENROLL_CHUNK) {
      const size = Math.min(ENROLL_CHUNK, count - offset);
      await db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ id: number }>`
          insert into debts (company_id, creditor_id, timeline_id, amount_minor, balance_minor, currency, amount_text,
            firstname, lastname, email, invoice_reference, timeline_start_mode, due_date)
          select ${companyId}, ${creditorId}, ${timelineId}, 10000 + n, 10000 + n, 'EUR', '100.00', 'Jane', 'Doe',
            'debtor' || n || '@example.com', 'INV-' || n, ${startMode}, ${dueDate}::date
          from generate_series(${offset + 1}::int, ${offset + size}::int) as n
          returning id`.execute(trx);
        await enrollDebts(trx, { companyId, debtIds: rows.map((row) => row.id), now: new Date(), restart: false });
      });
    }
    return performance.now() - started;
  };

  // (b) and (d)
  // Enrolled for later, so nothing is due before the worker is up; then made due at once.
  const seedMs = await seedDebts(DEBTS, "due_date", "2099-01-01");
  log(`seeded and enrolled ${DEBTS} debts in ${(seedMs / 1000).toFixed(1)} s`);
  await sql`vacuum analyze debts, enrollments, followups`.execute(db);
  const port = await freePort();
  const api = await startApiService({ databaseUrl: database.url, idKey: ID_KEY, port, rateLimitScale: 1000 });
  const token = await fetchToken(api.url, tenant);
  const worker = startService("apps/worker/bench/engine-worker.ts", {
    NODE_ENV: "production",
    DATABASE_URL: database.url,
    ID_ENCRYPTION_KEY: ID_KEY,
    NODE_OPTIONS: `${WORKER_NODE_OPTIONS} ${process.env["BENCH_WORKER_NODE_OPTIONS"] ?? ""}`,
  });
  await waitForLine(worker.child, /engine bench worker started/);
  // Due at once: with the worker up and idle, every step-0 followup falls due now.
  const { rows: dueRows } = await sql<{ due: Date }>`
    with due as (select clock_timestamp() as at)
    update followups f set due_at = due.at, scheduled_at = due.at from due
    where f.company_id = ${companyId} and f.step = 0 and f.status = 'scheduled'
    returning due.at as due`.execute(db);
  const dueAt = dueRows[0]?.due;
  const latencies: number[] = [];
  let sending = true;
  // A dashboard's pace, not a flood: one request every `BENCH_ENGINE_GET_INTERVAL_MS` (default 50 ms, 20/s).
  const interval = Number(process.env["BENCH_ENGINE_GET_INTERVAL_MS"] ?? 50);
  const client = (async () => {
    while (sending) {
      await new Promise((resolve) => setTimeout(resolve, interval));
      const started = performance.now();
      const response = await fetch(`${api.url}/external-api/v1/debts?limit=20`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`GET /debts answered ${response.status}`);
      latencies.push(performance.now() - started);
    }
  })();
  let peakRss = 0;
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    peakRss = Math.max(peakRss, rssOf(worker.pid).rssMb);
    const { rows } = await sql<{ sent: number }>`
      select count(*)::int as sent from followups where company_id = ${companyId} and step = 0 and status = 'delivered'`.execute(
      db,
    );
    if ((rows[0]?.sent ?? 0) >= DEBTS) break;
    if (Date.now() > deadline) throw new Error(`only ${rows[0]?.sent} of ${DEBTS} sent in 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  sending = false;
  await client;
  const workerPeak = rssOf(worker.pid).peakMb;
  await worker.stop();
  await api.stop();
  const { rows: timing } = await sql<{ span_ms: number; p50_ms: number; p99_ms: number; max_ms: number }>`
    select extract(epoch from max(m.created_at) - min(f.due_at)) * 1000 as span_ms,
      percentile_cont(0.5) within group (order by extract(epoch from m.created_at - f.due_at) * 1000) as p50_ms,
      percentile_cont(0.99) within group (order by extract(epoch from m.created_at - f.due_at) * 1000) as p99_ms,
      max(extract(epoch from m.created_at - f.due_at) * 1000) as max_ms
    from followups f join sandbox_messages m on m.company_id = f.company_id and m.followup_id = f.id
    where f.company_id = ${companyId} and f.step = 0`.execute(db);
  const t = timing[0]!;
  const sorted = [...latencies].sort((a, b) => a - b);
  lines.push(
    `(b) ${DEBTS} day-0 e-mails due at ${dueAt?.toISOString()}, one worker (concurrency 4, sweep batches of ${DEFAULT_ENGINE_SETTINGS.batchSize}):`,
    `    all sent in ${(Number(t.span_ms) / 1000).toFixed(1)} s -> ${Math.round(DEBTS / (Number(t.span_ms) / 1000))} actions/s (target: <= 120 s, >= 1,000/s)`,
    `    lateness (sandbox record - due): p50 ${(Number(t.p50_ms) / 1000).toFixed(1)} s, p99 ${(Number(t.p99_ms) / 1000).toFixed(1)} s, max ${(Number(t.max_ms) / 1000).toFixed(1)} s`,
    `    GET /debts?limit=20 meanwhile (${latencies.length} requests, one client, one every ${interval} ms): p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms (target p99 < 100 ms)`,
    `(d) worker RSS during (b): peak sampled ${peakRss} MB, VmHWM ${workerPeak} MB`,
  );
  log(lines.join("\n"));

  // (c)
  const idleMs = await seedDebts(IDLE_DEBTS, "due_date", "2099-01-01");
  log(`seeded and enrolled ${IDLE_DEBTS} more debts, nothing due, in ${(idleMs / 1000).toFixed(1)} s`);
  await sql`vacuum analyze debts, enrollments, followups`.execute(db);
  const refuse = () => Promise.reject(new Error("nothing is due: no provider call expected"));
  const deps = {
    db,
    clock: systemClock,
    logger: pino({ level: "silent" }),
    ids,
    links: { origin: DEVELOPMENT_PUBLIC_BASE_URL, secret: new TextEncoder().encode(ID_KEY) },
    adapters: { adapterFor: () => ({ send: refuse, lookup: refuse }) },
    engine: DEFAULT_ENGINE_SETTINGS,
  };
  const sweeps: number[] = [];
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    const result = await sweepLive(deps);
    sweeps.push(performance.now() - started);
    if (result.claimed !== 0) throw new Error(`a sweep claimed ${result.claimed} followups`);
  }
  const { rows: enrolled } = await sql<{ enrollments: number; waiting: number; jobs: number }>`
    select (select count(*)::int from enrollments) as enrollments,
      (select count(*)::int from followups where status = 'scheduled') as waiting,
      (select count(*)::int from graphile_worker.jobs) as jobs`.execute(db);
  const sweepSorted = [...sweeps].sort((a, b) => a - b);
  lines.push(
    `(c) ${enrolled[0]?.enrollments} enrollments, ${enrolled[0]?.waiting} followups scheduled, none due:`,
    `    one live sweep: median ${percentile(sweepSorted, 50).toFixed(2)} ms, max ${sweepSorted.at(-1)?.toFixed(2)} ms of 50 (target < 5 ms)`,
    `    jobs in graphile-worker's queue: ${enrolled[0]?.jobs} (the worker stopped; a running one keeps one engine_sweep job)`,
    `load average at the end: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(" ")} on ${availableParallelism()} CPUs`,
  );
  log(lines.slice(-4).join("\n"));
  log(`\n${lines.join("\n")}`);
} finally {
  await database.close();
}
process.exit(0);
