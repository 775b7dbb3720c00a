/**
 * What migrations 0020 (tenant keys) and 0021 (reference indexes) cost at
 * production size, for planning a deploy's maintenance window (not a test:
 * nothing is asserted). Migrates a new database to 0019, seeds 1,000,000
 * debts and the tables around them (`migration-cost-seed.ts`), runs
 * `vacuum analyze`, then times, through the project's migrator:
 *
 * - `up` of 0020, then of 0021, each alone in its transaction
 *   (`migrateUp`), with the transaction's duration: 0020's `ACCESS
 *   EXCLUSIVE` and 0021's `SHARE` locks are held from its first statement
 *   to its commit;
 * - `down` of 0021, then of 0020, and again from the top, for
 *   `BENCH_ROUNDS` rounds (default 3; `BENCH_DOWN=0`: one round of `up`s);
 * - both again in one Kysely `migrateToLatest`, for comparison with
 *   `migrate.ts`, which applies each in a transaction of its own (decision
 *   0028): in one transaction, 0020's locks are held until 0021's indexes
 *   are built too.
 *
 *   pnpm --filter @dc/db bench:migrations                  # 1,000,000 debts; writes docs/benchmarks.md
 *   BENCH_DEBTS=50000 node packages/db/bench/migration-cost.bench.ts   # a try at a smaller volume; writes nothing
 *   DATABASE_URL=postgres://... node packages/db/bench/migration-cost.bench.ts
 *
 * `node` must be Node 24 (type stripping). With DATABASE_URL, a database
 * named `dc_bench_*` is created on that server and dropped at the end. The
 * embedded cluster runs with `fsync=off` (embedded-postgres.ts): a server
 * that flushes to disk takes longer.
 */
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";
import { Kysely, type LogEvent, PostgresDialect, sql } from "kysely";
import { createPool } from "../src/connection.ts";
import { schemaMigrator } from "../src/migrate.ts";
import { openBenchDatabase } from "../../testing/bench-database.ts";
import { writeSection } from "../../testing/bench-report.ts";
import { seedProductionVolume, volumeFor } from "./migration-cost-seed.ts";

const DEBTS = Number(process.env["BENCH_DEBTS"] ?? 1_000_000);
const REPORT = process.env["BENCH_DEBTS"] === undefined;
const WITH_DOWN = process.env["BENCH_DOWN"] !== "0";
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);
if (!Number.isInteger(DEBTS) || DEBTS <= 0 || DEBTS % 10_000 !== 0) {
  throw new Error(`BENCH_DEBTS must be a positive multiple of 10,000, not ${String(process.env["BENCH_DEBTS"])}`);
}
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`BENCH_ROUNDS must be a positive integer`);
const volume = volumeFor(DEBTS);

const bench = await openBenchDatabase({
  poolSize: 1,
  migrate: async (db) => {
    const { error } = await schemaMigrator(db).migrateTo("0019-idempotency-keys");
    if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
  },
});

/** When each `begin` started and each `commit` ended on the migrator's connection (Kysely logs both). */
const marks: Array<{ readonly sql: "begin" | "commit"; readonly at: number }> = [];
const log = (event: LogEvent) => {
  const text = event.query.sql.trim().toLowerCase();
  if (text === "begin") marks.push({ sql: "begin", at: performance.now() - event.queryDurationMillis });
  if (text === "commit") marks.push({ sql: "commit", at: performance.now() });
};
const migrationDb = new Kysely<unknown>({
  dialect: new PostgresDialect({ pool: createPool({ connectionString: bench.url, max: 1 }) }),
  log,
});
const migrator = schemaMigrator(migrationDb);

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
const databaseSize = async () =>
  (await sql<{ size: string }>`select pg_size_pretty(pg_database_size(current_database())) as size`.execute(bench.db))
    .rows[0]!.size;

interface Step {
  readonly label: string;
  readonly wallMs: number;
  /** From the `begin` to the end of the `commit` of the migrator's one transaction: how long its locks are held. */
  readonly transactionMs: number;
  readonly sizeAfter: string;
}

const step = async (
  label: string,
  expected: ReadonlyArray<string>,
  run: () => ReturnType<typeof migrator.migrateUp>,
) => {
  marks.length = 0;
  const started = performance.now();
  const { error, results } = await run();
  const wallMs = performance.now() - started;
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
  const ran = (results ?? []).map((result) => `${result.direction} ${result.migrationName}`);
  if (ran.join() !== expected.join())
    throw new Error(`${label}: ran ${ran.join(", ")}, expected ${expected.join(", ")}`);
  const begin = marks.find((mark) => mark.sql === "begin");
  const commit = marks.findLast((mark) => mark.sql === "commit");
  if (begin === undefined || commit === undefined) throw new Error(`${label}: no transaction was logged`);
  const result: Step = { label, wallMs, transactionMs: commit.at - begin.at, sizeAfter: await databaseSize() };
  process.stdout.write(
    `${label}: ${seconds(wallMs)} (transaction ${seconds(result.transactionMs)}), database ${result.sizeAfter}\n`,
  );
  return result;
};

const seedStarted = performance.now();
await seedProductionVolume(bench.db as unknown as Kysely<unknown>, volume, (table, ms) =>
  process.stdout.write(`  seeded ${table} in ${seconds(ms)}\n`),
);
await sql`vacuum analyze`.execute(bench.db);
await sql`checkpoint`.execute(bench.db);
const seedMs = performance.now() - seedStarted;
const sizeBefore = await databaseSize();
process.stdout.write(`seeded and analysed in ${seconds(seedMs)}, database ${sizeBefore}\n`);

// The first round runs on the freshly analysed tables, as a deploy does; the others show how much the figures vary
// (this machine may be busy with other work: the load average is reported).
const loadBefore = loadavg()[0]!;
const rounds: Array<ReadonlyArray<Step>> = [];
for (let round = 1; round <= ROUNDS; round++) {
  const up20 = await step(`up 0020`, ["Up 0020-tenant-keys"], () => migrator.migrateUp());
  const up21 = await step(`up 0021`, ["Up 0021-reference-indexes"], () => migrator.migrateUp());
  if (!WITH_DOWN) {
    rounds.push([up20, up21]);
    break;
  }
  const down21 = await step("down 0021", ["Down 0021-reference-indexes"], () => migrator.migrateDown());
  const down20 = await step("down 0020", ["Down 0020-tenant-keys"], () => migrator.migrateDown());
  rounds.push([up20, up21, down21, down20]);
}
const together = WITH_DOWN
  ? await step("up 0020 + 0021 in one `migrateToLatest`", ["Up 0020-tenant-keys", "Up 0021-reference-indexes"], () =>
      migrator.migrateToLatest(),
    )
  : undefined;
const loadAfter = loadavg()[0]!;

const settings = (
  await sql<{ name: string; setting: string }>`
    select name, current_setting(name) as setting from unnest(array['server_version', 'maintenance_work_mem',
      'max_parallel_maintenance_workers', 'shared_buffers', 'fsync']) as name`.execute(bench.db)
).rows
  .map(({ name, setting }) => `${name} ${setting}`)
  .join(", ");
const machine = `${availableParallelism()} cores (${cpus()[0]?.model ?? "unknown CPU"}), ${Math.round(totalmem() / 2 ** 30)} GiB`;
const count = (value: number) => value.toLocaleString("en");
const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const spreadOf = (values: ReadonlyArray<number>) =>
  values.length === 1 ? "" : ` (${seconds(Math.min(...values))} to ${seconds(Math.max(...values))})`;
/** One table row per step: the first round's figures, then the median and range over all rounds. */
const row = (steps: ReadonlyArray<Step>) => {
  const first = steps[0]!;
  const transactions = steps.map((s) => s.transactionMs);
  return `| ${first.label} | ${seconds(first.transactionMs)} | ${seconds(median(transactions))}${spreadOf(transactions)} | ${first.sizeAfter} |`;
};
const stepsAt = (index: number) => rounds.map((round) => round[index]!).filter((s) => s !== undefined);
const perMillion = (ms: number) => seconds((ms * 1_000_000) / DEBTS);

const section = [
  "## Migrations 0020 and 0021 at production size",
  "",
  `Run on ${new Date().toISOString().slice(0, 10)}: ${machine}, Node ${process.version}, ` +
    `${process.env["DATABASE_URL"] === undefined ? "embedded " : ""}PostgreSQL (${settings}). ` +
    "Command: `pnpm --filter @dc/db bench:migrations` (`packages/db/bench/migration-cost.bench.ts`).",
  "",
  `Seeded at migration 0019 with set-based SQL in ${seconds(seedMs)}, then \`vacuum analyze\`: ${volume.debts.toLocaleString("en")} debts over ` +
    `10 companies, ${count(volume.payments)} payments, ${count(volume.payment_plans)} payment plans with ${count(volume.installments)} ` +
    `installments, ${count(volume.followups)} followups, ${count(volume.credit_transactions)} credit transactions, ` +
    `${count(volume.debtors)} debtors, ${count(volume.snapshots)} snapshots with ${count(volume.snapshot_chunks)} chunks, ` +
    `${count(volume.webhook_events)} webhook events and deliveries (${count(volume.webhook_deliveries * 1.2)} attempts), ` +
    `${count(volume.oauth_access_tokens)} access and refresh tokens each, and the small tables around them. Database ${sizeBefore}.`,
  "",
  `${rounds.length} round${rounds.length === 1 ? "" : "s"}; load average ${loadBefore.toFixed(2)} before the first, ` +
    `${loadAfter.toFixed(2)} after the last. Each step is one transaction of Kysely's migrator, and its duration is how ` +
    "long the migration's locks are held: 0020's `ACCESS EXCLUSIVE` on 21 tenant tables (no read or write of them), " +
    "0021's `SHARE` on the tables it indexes (reads go on, writes wait). The wall time of each step is its transaction's " +
    "plus a few milliseconds (the migrator's own lock and bookkeeping).",
  "",
  "| step | transaction, first round | median (range) over the rounds | database after |",
  "|---|---|---|---|",
  ...[0, 1, 2, 3]
    .map(stepsAt)
    .filter((steps) => steps.length > 0)
    .map(row),
  ...(together === undefined ? [] : [row([together])]),
  "",
  `Per million debts (first round): 0020 ${perMillion(stepsAt(0)[0]!.transactionMs)}, ` +
    `0021 ${perMillion(stepsAt(1)[0]!.transactionMs)}` +
    (together === undefined
      ? "."
      : `; both in one transaction (Kysely's \`migrateToLatest\`; \`migrate.ts\` applies each alone), ` +
        `${perMillion(together.transactionMs)}, all of it under 0020's locks.`),
].join("\n");
process.stdout.write(`\n${section}\n`);
if (REPORT) writeSection("migration-cost", section);

await migrationDb.destroy();
await bench.close();
// embedded-postgres can swallow the exit code (DESIGN.md 2).
process.exit(0);
