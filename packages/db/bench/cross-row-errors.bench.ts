/**
 * What `findCrossRowErrors` costs over a staged snapshot at its largest
 * (not a test: nothing is asserted). Stores, on a new database, snapshots
 * whose identity arrays are built by PostgreSQL (the bodies are not read by
 * the statement, so each chunk stores a placeholder):
 *
 * - 1,000,000 rows in 50 chunks of 20,000, unique `acc-0000001` identities;
 * - the same with an invoice reference on every row (both duplicate checks sort);
 * - the same whose last chunk repeats the first (20,000 duplicates: the error path);
 * - 20,000 rows in one chunk;
 *
 * then times `BENCH_ROUNDS` calls of each (default 5) and prints the
 * fastest and the median, with this process's RSS before the first call,
 * after the last, and its peak sampled every 5 ms in between: only the
 * first errors leave the database, so the RSS must not move with the rows.
 *
 *   pnpm --filter @dc/db bench:cross-rows
 *   DATABASE_URL=postgres://... node packages/db/bench/cross-row-errors.bench.ts
 *
 * With DATABASE_URL, a database named `dc_bench_*` is created on that server
 * and dropped at the end; without, an embedded cluster is used.
 */
import { cpus, loadavg } from "node:os";
import { type Kysely, sql } from "kysely";
import { findCrossRowErrors } from "../src/queries/snapshots/cross-row-errors.ts";
import type { Database } from "../src/schema.ts";
import { openBenchDatabase } from "../../testing/bench-database.ts";

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 5);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error("BENCH_ROUNDS must be a positive integer");

interface Shape {
  readonly name: string;
  readonly chunks: number;
  readonly rowsPerChunk: number;
  readonly invoices: boolean;
  /** The last chunk repeats the first chunk's identities. */
  readonly repeatFirstChunk: boolean;
}

const shapes: ReadonlyArray<Shape> = [
  {
    name: "1,000,000 accounts (50 x 20,000)",
    chunks: 50,
    rowsPerChunk: 20_000,
    invoices: false,
    repeatFirstChunk: false,
  },
  {
    name: "1,000,000 accounts with invoice references",
    chunks: 50,
    rowsPerChunk: 20_000,
    invoices: true,
    repeatFirstChunk: false,
  },
  {
    name: "1,000,000 accounts, last chunk repeats the first",
    chunks: 50,
    rowsPerChunk: 20_000,
    invoices: false,
    repeatFirstChunk: true,
  },
  { name: "20,000 accounts (1 chunk)", chunks: 1, rowsPerChunk: 20_000, invoices: false, repeatFirstChunk: false },
];

const bench = await openBenchDatabase({ poolSize: 2 });

const seedCampaign = async (db: Kysely<Database>): Promise<{ companyId: number; campaignId: number }> => {
  const { rows } = await sql<{ company_id: number; campaign_id: number }>`
    with company as (insert into companies (name) values ('Cross-row bench') returning id),
    creditor as (insert into creditors (company_id, name) select id, 'C' from company returning id, company_id),
    timeline as (insert into timelines (company_id, name) select id, 'T' from company returning id)
    insert into campaigns (company_id, api_reference, name, creditor_id, timeline_id)
    select creditor.company_id, 'cross-row-bench', 'Cross-row bench', creditor.id, timeline.id from creditor, timeline
    returning company_id, id as campaign_id`.execute(db);
  return { companyId: Number(rows[0]?.company_id), campaignId: Number(rows[0]?.campaign_id) };
};

const storeShape = async (
  db: Kysely<Database>,
  scope: { companyId: number; campaignId: number },
  shape: Shape,
  reference: string,
): Promise<{ companyId: number; id: number }> => {
  const rowCount = shape.chunks * shape.rowsPerChunk;
  const { rows } = await sql<{ id: number }>`
    insert into snapshots (company_id, campaign_id, snapshot_reference, delivery_mode, status, expected_row_count)
    values (${scope.companyId}, ${scope.campaignId}, ${reference}, 'staged', 'uploading', ${rowCount})
    returning id`.execute(db);
  const id = Number(rows[0]?.id);
  await sql`
    insert into snapshot_chunks (snapshot_id, chunk_index, company_id, body_sha256, row_count, body, internal_ids, invoice_references)
    select ${id}, c, ${scope.companyId}, '\\x00'::bytea, ${shape.rowsPerChunk}, '{"rows":[]}',
      array(select 'acc-' || lpad((k * ${shape.rowsPerChunk}::int + i + 1)::text, 7, '0')
            from generate_series(0, ${shape.rowsPerChunk - 1}::int) i order by i),
      case when ${shape.invoices}::boolean
        then array(select 'inv-' || lpad((k * ${shape.rowsPerChunk}::int + i + 1)::text, 7, '0')
                   from generate_series(0, ${shape.rowsPerChunk - 1}::int) i order by i)
        else array_fill(null::text, array[${shape.rowsPerChunk}::int]) end
    from generate_series(0, ${shape.chunks - 1}::int) c,
      lateral (select case when ${shape.repeatFirstChunk}::boolean and c = ${shape.chunks - 1} then 0 else c end as k) repeat
  `.execute(db);
  return { companyId: scope.companyId, id };
};

const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

try {
  const scope = await seedCampaign(bench.db);
  const stored = [];
  for (const [i, shape] of shapes.entries()) stored.push(await storeShape(bench.db, scope, shape, `bench-${i}`));
  await sql`vacuum analyze snapshot_chunks`.execute(bench.db);

  process.stdout.write(
    `${cpus().length} CPUs, load ${loadavg()
      .map((load) => load.toFixed(2))
      .join(" ")}\n`,
  );
  for (const [i, shape] of shapes.entries()) {
    const snapshot = stored[i];
    if (snapshot === undefined) continue;
    await findCrossRowErrors(bench.db, snapshot); // warms the cache and the connection
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const times: Array<number> = [];
    let count = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const start = performance.now();
      count = (await findCrossRowErrors(bench.db, snapshot)).count;
      times.push(performance.now() - start);
    }
    clearInterval(sampler);
    const after = process.memoryUsage().rss;
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] ?? 0;
    process.stdout.write(
      `${shape.name}: ${count} errors; fastest ${(times[0] ?? 0).toFixed(0)} ms, median ${median.toFixed(0)} ms ` +
        `(${ROUNDS} rounds); RSS ${megabytes(before)} before, ${megabytes(after)} after, peak ${megabytes(peak)}\n`,
    );
  }
} finally {
  await bench.close();
}
