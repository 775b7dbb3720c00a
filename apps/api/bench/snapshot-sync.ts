/**
 * `node apps/api/bench/snapshot-sync.ts`: snapshot sync through the real
 * api and worker processes (production mode, one of each), as an integrator
 * sees it (issue 5's benchmark, end to end):
 *
 * - a campaign is filled with 20,000 debts by a first snapshot;
 * - a 20,000-row one-request snapshot (80% balance changes, 10% new, 10%
 *   omitted, 10% with payment plans): submit latency (PUT to 202), time from
 *   the submit to `completed`, rows/s;
 * - a staged 100,000-row snapshot in 5 chunks of 20,000: start, each chunk's
 *   latency, finalize, and time from the first byte to `completed`;
 * - worker peak RSS.
 *
 * The worker-side comparison with the PostgreSQL floor is
 * apps/worker/bench/apply-snapshot.bench.ts. Writes its section of
 * docs/benchmarks.md.
 */
import { randomBytes } from "node:crypto";
import { cpus, loadavg, totalmem } from "node:os";
import { createCampaign, createCreditor, createTimeline } from "../src/admin/collection-setup.ts";
import { createTenant } from "../src/admin/tenants.ts";
import { makeIds } from "../src/ids.ts";
import { fetchToken, freePort, rssOf, startApiService, startBenchDatabase, startWorkerService } from "./processes.ts";
import { writeSection } from "./report.ts";

const ROWS = 20_000;
const STAGED_ROWS = 100_000;
const CHUNKS = 5;
const ID_KEY = randomBytes(36).toString("base64");

const account = (i: number): string => `acc-${String(i).padStart(6, "0")}`;

/** The seed: 20,000 debts with a balance of 300. */
const seedRows = () => Array.from({ length: ROWS }, (_, i) => ({ internal_id: account(i), remaining_amount: 300, currency: "EUR" }));

/**
 * Rows 0–17,999 match seeded debts: 16,000 with a new balance, 2,000 restated;
 * one in ten of them (2,000) carries a plan with one paid installment. Rows
 * 18,000–19,999 are new; seeded debts 18,000–19,999 are omitted and settled.
 */
const measuredRows = () =>
  Array.from({ length: ROWS }, (_, i) => {
    if (i >= 18_000) return { internal_id: `new-${i}`, remaining_amount: 42.5, currency: "EUR", firstname: "New" };
    const remaining = i < 16_000 ? 100 + (i % 97) : 300;
    const row: Record<string, unknown> = { internal_id: account(i), remaining_amount: remaining, currency: "EUR" };
    if (i % 9 === 0) {
      row["payment_plan"] = {
        external_reference: `plan-${i}`,
        status: "active",
        installments: [
          { external_reference: "a", amount: 10, payment_date: "2030-05-01", status: "paid", paid_at: "2030-05-01T10:00:00+02:00", external_payment_id: `pay-${i}` },
          { external_reference: "b", amount: remaining, payment_date: "2030-07-01", status: "pending" },
        ],
      };
    }
    return row;
  });

/** 100,000 accounts: the 20,000 of the campaign with new balances, 80,000 new debts. */
const stagedRows = () =>
  Array.from({ length: STAGED_ROWS }, (_, i) => ({ internal_id: i < ROWS ? account(i) : `staged-${i}`, remaining_amount: 50 + (i % 89), currency: "EUR" }));

const main = async () => {
  const database = await startBenchDatabase();
  const services: Array<{ stop: () => Promise<void> }> = [];
  try {
    const ids = makeIds(new TextEncoder().encode(ID_KEY));
    const tenant = await createTenant(database.db, ids, "Snapshot Bench");
    const companyId = ids.decode("company", tenant.company_id)!;
    const creditor = await createCreditor(database.db, { companyId, name: "Ledger" });
    const timeline = await createTimeline(database.db, companyId, "Default");
    await createCampaign(database.db, { companyId, apiReference: "ledger", name: "Ledger", creditorId: creditor.id, timelineId: timeline.id });

    const port = await freePort();
    const api = await startApiService({ databaseUrl: database.url, idKey: ID_KEY, port, rateLimitScale: 1000 });
    services.push(api);
    const worker = startWorkerService({ databaseUrl: database.url, idKey: ID_KEY });
    services.push(worker);
    const token = await fetchToken(api.url, tenant);
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const snapshotUrl = (reference: string) => `${api.url}/external-api/v1/campaigns/ledger/snapshots/${reference}`;

    const send = async (method: string, url: string, body: string, expected: number) => {
      const started = performance.now();
      const response = await fetch(url, { method, headers, body });
      const text = await response.text();
      const ms = performance.now() - started;
      if (response.status !== expected) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 500)}`);
      return ms;
    };
    const untilDone = async (reference: string) => {
      for (;;) {
        const response = await fetch(snapshotUrl(reference), { headers });
        const { data } = (await response.json()) as { data: { status: string; failure: unknown } };
        if (data.status === "completed") return performance.now();
        if (data.status === "failed") throw new Error(`snapshot ${reference} failed: ${JSON.stringify(data.failure)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    const seedStarted = performance.now();
    await send("PUT", snapshotUrl("seed"), JSON.stringify({ rows: seedRows() }), 202);
    const seedMs = (await untilDone("seed")) - seedStarted;
    process.stdout.write(`seed: 20,000 debts created in ${seedMs.toFixed(0)} ms\n`);

    const body = JSON.stringify({ rows: measuredRows() });
    const submitStarted = performance.now();
    const submitMs = await send("PUT", snapshotUrl("measured"), body, 202);
    const completedMs = (await untilDone("measured")) - submitStarted;
    process.stdout.write(`20,000 rows (${(Buffer.byteLength(body) / 2 ** 20).toFixed(1)} MiB): submit ${submitMs.toFixed(0)} ms, submit -> completed ${completedMs.toFixed(0)} ms\n`);

    const staged = stagedRows();
    const stagedStarted = performance.now();
    const startMs = await send("POST", `${snapshotUrl("staged")}/start`, JSON.stringify({ expected_row_count: STAGED_ROWS }), 201);
    const chunkMs: number[] = [];
    const perChunk = STAGED_ROWS / CHUNKS;
    for (let chunk = 0; chunk < CHUNKS; chunk++) {
      const rows = staged.slice(chunk * perChunk, (chunk + 1) * perChunk);
      chunkMs.push(await send("PUT", `${snapshotUrl("staged")}/chunks/${chunk}`, JSON.stringify({ rows }), 201));
    }
    const finalizeMs = await send("POST", `${snapshotUrl("staged")}/finalize`, "{}", 202);
    const finalized = performance.now();
    const stagedDone = await untilDone("staged");
    const stagedTotalMs = stagedDone - stagedStarted;
    const stagedApplyMs = stagedDone - finalized;
    process.stdout.write(
      `staged 100,000 rows in 5 chunks: start ${startMs.toFixed(0)} ms, chunks ${chunkMs.map((ms) => ms.toFixed(0)).join(" / ")} ms, finalize ${finalizeMs.toFixed(0)} ms, finalize -> completed ${stagedApplyMs.toFixed(0)} ms, first request -> completed ${stagedTotalMs.toFixed(0)} ms\n`,
    );
    const workerMemory = rssOf(worker.pid);
    const apiMemory = rssOf(api.pid);
    process.stdout.write(`worker peak RSS ${workerMemory.peakMb} MB, api peak RSS ${apiMemory.peakMb} MB\n`);

    writeSection(
      "snapshot-sync",
      [
        "## Snapshot sync end to end (api + worker)",
        "",
        `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, embedded PostgreSQL 18, one api and one worker process (production mode) on the same machine; load average at the end ${loadavg().map((value) => value.toFixed(2)).join(" ")}. Command: \`node apps/api/bench/snapshot-sync.ts\`. A campaign is first filled with 20,000 debts by a snapshot (${seedMs.toFixed(0)} ms from submit to \`completed\`).`,
        "",
        "| measure | figure |",
        "|---|---|",
        `| 20,000-row one-request submit (${(Buffer.byteLength(body) / 2 ** 20).toFixed(1)} MiB): PUT to 202 | ${submitMs.toFixed(0)} ms |`,
        `| same: submit to \`completed\` (target < 2,000 ms) | ${completedMs.toFixed(0)} ms |`,
        `| same: rows/s, submit to \`completed\` | ${Math.round(ROWS / (completedMs / 1000)).toLocaleString("en")} |`,
        `| staged 100,000 rows: start | ${startMs.toFixed(0)} ms |`,
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
