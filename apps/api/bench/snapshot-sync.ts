/**
 * `node apps/api/bench/snapshot-sync.ts`: snapshot sync through the real
 * api and worker processes (production mode, one of each), as an integrator
 * sees it (end to end). For each row shape (lean and
 * full, packages/testing/snapshot-bench.ts), `BENCH_ROUNDS` rounds
 * (default 5) of:
 *
 * - a new campaign filled with 20,000 debts by a first snapshot;
 * - the PostgreSQL floor on the same database: the measured rows written by
 *   COPY into a temporary table plus one INSERT ... ON CONFLICT merge;
 * - the 20,000-row one-request snapshot (80% balance changes, 10% new, 10%
 *   omitted, 10% with payment plans): submit latency (PUT to 202), time from
 *   the submit to `completed` (read with `Prefer: wait`, so the answer comes
 *   when the worker commits), rows/s and the ratio to the round's floor.
 *
 * Then a staged 100,000-row snapshot in 5 chunks of 20,000: start, each
 * chunk's latency, finalize, and time from the first byte to `completed`;
 * and the worker's and api's peak RSS. Writes its section of
 * docs/benchmarks.md. The worker's apply alone, with its phases, is
 * apps/worker/bench/apply-snapshot.bench.ts.
 */
import { randomBytes } from "node:crypto";
import { cpus, loadavg, totalmem } from "node:os";
import {
  type BenchRowShape,
  benchSeedRows,
  benchSnapshotRows,
  measurePostgresFloor,
  SNAPSHOT_BENCH_ROWS,
} from "@dc/testing";
import { rssOf, startBenchDatabase } from "./processes.ts";
import { startSnapshotTenant } from "./snapshot-tenant.ts";
import { writeSection } from "@dc/testing";

const ROWS = SNAPSHOT_BENCH_ROWS;
const STAGED_ROWS = 100_000;
const CHUNKS = 5;
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 5);
const SHAPES: ReadonlyArray<BenchRowShape> = ["lean", "full"];
const ID_KEY = randomBytes(36).toString("base64");

/** 100,000 accounts: the 20,000 of the campaign with new balances, 80,000 new debts. */
const stagedRows = () =>
  Array.from({ length: STAGED_ROWS }, (_, i) => ({
    internal_id: i < ROWS ? `acc-${String(i).padStart(6, "0")}` : `staged-${i}`,
    remaining_amount: 50 + (i % 89),
    currency: "EUR",
  }));

interface Round {
  readonly submitMs: number;
  readonly completedMs: number;
  readonly floorMs: number;
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

const main = async () => {
  const database = await startBenchDatabase();
  const services: Array<{ stop: () => Promise<void> }> = [];
  try {
    const tenant = await startSnapshotTenant(database, { idKey: ID_KEY, name: "Snapshot Bench" });
    services.push(tenant);
    const { api, worker, newCampaign, snapshotUrl, send, untilDone } = tenant;

    const rounds = new Map<BenchRowShape, Array<Round>>();
    const bodyMiB = new Map<BenchRowShape, number>();
    const seedMs: Array<number> = [];
    for (const shape of SHAPES) {
      const body = JSON.stringify({ rows: benchSnapshotRows(shape) });
      bodyMiB.set(shape, Buffer.byteLength(body) / 2 ** 20);
      const measured: Array<Round> = [];
      rounds.set(shape, measured);
      for (let round = 1; round <= ROUNDS; round++) {
        const campaign = `${shape}-${round}`;
        await newCampaign(campaign);
        const seedStarted = performance.now();
        await send("PUT", snapshotUrl(campaign, "seed"), JSON.stringify({ rows: benchSeedRows(shape) }), 202);
        seedMs.push((await untilDone(snapshotUrl(campaign, "seed"))).at - seedStarted);
        const floorMs = await measurePostgresFloor(database.url, benchSnapshotRows(shape));
        const submitStarted = performance.now();
        const submitMs = await send("PUT", snapshotUrl(campaign, "measured"), body, 202);
        const completedMs = (await untilDone(snapshotUrl(campaign, "measured"))).at - submitStarted;
        measured.push({ submitMs, completedMs, floorMs });
        process.stdout.write(
          `${shape} round ${round} (${(bodyMiB.get(shape) ?? 0).toFixed(1)} MiB): submit ${submitMs.toFixed(0)} ms, ` +
            `submit -> completed ${completedMs.toFixed(0)} ms, floor ${floorMs.toFixed(0)} ms, ratio ${(completedMs / floorMs).toFixed(2)}x\n`,
        );
      }
    }

    const staged = stagedRows();
    const stagedCampaign = "lean-1";
    const stagedStarted = performance.now();
    const startMs = await send("POST", `${snapshotUrl(stagedCampaign, "staged")}/start`, JSON.stringify({ expected_row_count: STAGED_ROWS }), 201);
    const chunkMs: number[] = [];
    const perChunk = STAGED_ROWS / CHUNKS;
    for (let chunk = 0; chunk < CHUNKS; chunk++) {
      const rows = staged.slice(chunk * perChunk, (chunk + 1) * perChunk);
      chunkMs.push(await send("PUT", `${snapshotUrl(stagedCampaign, "staged")}/chunks/${chunk}`, JSON.stringify({ rows }), 201));
    }
    const finalizeMs = await send("POST", `${snapshotUrl(stagedCampaign, "staged")}/finalize`, "{}", 202);
    const finalized = performance.now();
    const stagedDone = (await untilDone(snapshotUrl(stagedCampaign, "staged"))).at;
    const stagedTotalMs = stagedDone - stagedStarted;
    const stagedApplyMs = stagedDone - finalized;
    process.stdout.write(
      `staged 100,000 rows in 5 chunks: start ${startMs.toFixed(0)} ms, chunks ${chunkMs.map((ms) => ms.toFixed(0)).join(" / ")} ms, finalize ${finalizeMs.toFixed(0)} ms, finalize -> completed ${stagedApplyMs.toFixed(0)} ms, first request -> completed ${stagedTotalMs.toFixed(0)} ms\n`,
    );
    const workerMemory = rssOf(worker.pid);
    const apiMemory = rssOf(api.pid);
    process.stdout.write(`worker peak RSS ${workerMemory.peakMb} MB, api peak RSS ${apiMemory.peakMb} MB\n`);

    const shapeRows = [...rounds].flatMap(([shape, measured]) => {
      const submit = median(measured.map((round) => round.submitMs));
      const completed = median(measured.map((round) => round.completedMs));
      const floor = median(measured.map((round) => round.floorMs));
      // Each round's ratio compares the two under the same machine load; the median of those is reported.
      const ratio = median(measured.map((round) => round.completedMs / round.floorMs));
      const perRound = (pick: (round: Round) => number, digits = 0) =>
        measured.map((round) => pick(round).toFixed(digits)).join(", ");
      return [
        `| ${shape} rows (${(bodyMiB.get(shape) ?? 0).toFixed(1)} MiB): PUT to 202 | ${submit.toFixed(0)} ms (${perRound((round) => round.submitMs)}) |`,
        `| ${shape}: submit to \`completed\` (target < 2,000 ms: ${completed < 2000 ? "met" : "missed"}) | ${completed.toFixed(0)} ms (${perRound((round) => round.completedMs)}) |`,
        `| ${shape}: rows/s, submit to \`completed\` | ${Math.round(ROWS / (completed / 1000)).toLocaleString("en")} |`,
        `| ${shape}: PostgreSQL floor in the same round | ${floor.toFixed(0)} ms (${perRound((round) => round.floorMs)}) |`,
        `| ${shape}: submit to \`completed\` / floor (target ≤ 4x: ${ratio <= 4 ? "met" : "missed"}) | **${ratio.toFixed(2)}x** (${perRound((round) => round.completedMs / round.floorMs, 2)}) |`,
      ];
    });
    writeSection(
      "snapshot-sync",
      [
        "## Snapshot sync end to end (api + worker)",
        "",
        `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, embedded PostgreSQL 18, one api and one worker process (production mode) on the same machine; load average at the end ${loadavg().map((value) => value.toFixed(2)).join(" ")}. Command: \`node apps/api/bench/snapshot-sync.ts\`.`,
        "",
        `Each of ${ROUNDS} rounds per row shape fills a new campaign with 20,000 debts by a first snapshot (median ${median(seedMs).toFixed(0)} ms from submit to \`completed\`), measures the PostgreSQL floor on the same database (the measured rows, every field, written by COPY into a temporary table plus one \`INSERT ... ON CONFLICT\` merge into a table already holding their keys), then submits the 20,000-row snapshot: 80% balance changes, 10% new debts, 10% omitted, 10% with a payment plan. \`lean\` rows carry identity, balance and currency; \`full\` rows add the debtor's name, e-mail and phone. Figures are medians, rounds in brackets; the ratio is the median of each round's ratio.`,
        "",
        "| measure | figure |",
        "|---|---|",
        ...shapeRows,
        `| staged 100,000 rows (lean): start | ${startMs.toFixed(0)} ms |`,
        `| staged: each 20,000-row chunk, PUT to 201 | ${chunkMs.map((ms) => ms.toFixed(0)).join(" / ")} ms |`,
        `| staged: finalize, POST to 202 | ${finalizeMs.toFixed(0)} ms |`,
        `| staged: finalize to \`completed\` (20,000 updated, 80,000 created) | ${stagedApplyMs.toFixed(0)} ms |`,
        `| staged: first request to \`completed\` | ${stagedTotalMs.toFixed(0)} ms (${Math.round(STAGED_ROWS / (stagedTotalMs / 1000)).toLocaleString("en")} rows/s) |`,
        `| worker peak RSS | ${workerMemory.peakMb} MB |`,
        `| api peak RSS | ${apiMemory.peakMb} MB |`,
      ].join("\n"),
    );
  } finally {
    for (const service of services.reverse()) await service.stop();
    await database.close();
  }
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
