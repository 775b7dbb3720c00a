/**
 * `pnpm bench` (apps/api): the resource-endpoint benchmark on an
 * ephemeral embedded PostgreSQL (or BENCH_DATABASE_URL's server): seeds
 * 1,000,000 debts, runs one api process, measures the scenarios with
 * autocannon at 50 connections, the naive Koa + pg floor in the same run
 * (page 1 and its floor in alternating slices, compared pair by pair; so
 * are page 500 by cursor against page 1, and a compressed page against the
 * same page uncompressed), and writes the figures to docs/benchmarks.md.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { repositoryRoot } from "@dc/db";
import { makeIds } from "@dc/db";
import { combineSlices, runScenario, type Scenario, sequentialLatency, type LoadResult } from "./load.ts";
import { fetchToken, freePort, rssOf, type Service, startApiService, startBenchDatabase, waitForLine } from "./processes.ts";
import { writeSection } from "@dc/testing";
import { seed } from "./seed.ts";

const root = repositoryRoot();
const duration = Number(process.env["BENCH_DURATION_SECONDS"] ?? 15);
/** Slices per side when page 1 and its floor are measured alternately (of `duration` seconds in all per side). */
const PAIR_SLICES = 6;
const medianOf = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};
const ID_KEY = randomBytes(36).toString("base64");

/**
 * The cursor of page `page` (by `limit`) of `path`, found by walking there
 * (docs/decisions/0595), and checked to read the rows of that page by number.
 */
const cursorOfPage = async (base: string, headers: Record<string, string>, path: string, page: number, limit: number): Promise<string> => {
  type Body = { data: Array<{ id: string }>; pagination: { page: number; next_cursor?: string | null } };
  const get = async (query: string): Promise<Body> => {
    const response = await fetch(`${base}${path}?limit=${limit}&${query}`, { headers });
    if (!response.ok) throw new Error(`${path}?${query}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Body;
  };
  let cursor = "";
  for (let at = 1; at < page; at++) cursor = (await get(`cursor=${encodeURIComponent(cursor)}`)).pagination.next_cursor ?? "";
  const [byCursor, byNumber] = await Promise.all([get(`cursor=${encodeURIComponent(cursor)}`), get(`page=${page}`)]);
  const ids = (body: Body) => body.data.map((row) => row.id).join();
  if (byCursor.pagination.page !== page || byCursor.data.length !== limit || ids(byCursor) !== ids(byNumber)) {
    throw new Error(`the cursor walk does not reach page ${page} of ${path}`);
  }
  return encodeURIComponent(cursor);
};

const main = async () => {
  const database = await startBenchDatabase();
  const { db, url } = database;
  const children: ChildProcess[] = [];
  let api: (Service & { readonly url: string }) | undefined;
  try {
    const ids = makeIds(new TextEncoder().encode(ID_KEY));
    const seeded = await seed(db, ids);

    const apiPort = await freePort();
    api = await startApiService({ databaseUrl: url, idKey: ID_KEY, port: apiPort, rateLimitScale: 1_000_000 });
    const base = api.url;
    const tenant = seeded.tenants[0]!;
    const auth = { authorization: `Bearer ${await fetchToken(base, tenant)}` };

    const naivePort = await freePort();
    const naive = spawn(process.execPath, [join(root, "apps/api/bench/naive-server.ts"), url, String(naivePort)], { stdio: ["ignore", "pipe", "inherit"] });
    children.push(naive);
    await waitForLine(naive, /ready/);

    const results: LoadResult[] = [];
    // autocannon abandons its requests in flight when a run ends; the server still
    // finishes them. A pause lets it, so one scenario's backlog does not load the next.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));
    const measure = async (scenario: Parameters<typeof runScenario>[0]) => {
      await runScenario({ ...scenario, durationSeconds: 2 });
      await settle();
      const result = await runScenario(scenario);
      await settle();
      results.push(result);
      const statuses = result.non2xx > 0 ? ` (statuses ${JSON.stringify(result.statusCodes)})` : "";
      process.stdout.write(`${result.name}: ${result.requestsPerSecond} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, non-2xx ${result.non2xx}${statuses}, errors ${result.errors}\n`);
      return result;
    };
    /** `floor` and `measured` in `PAIR_SLICES` alternating slices each (ABBA order), with each slice pair's ratio. */
    const measurePair = async (floor: Scenario, measured: Scenario) => {
      const sliceSeconds = Math.max(1, Math.round(floor.durationSeconds / PAIR_SLICES));
      await runScenario({ ...floor, durationSeconds: 2 });
      await runScenario({ ...measured, durationSeconds: 2 });
      await settle();
      const slices: Array<{ floor: LoadResult; measured: LoadResult }> = [];
      for (let i = 0; i < PAIR_SLICES; i++) {
        const order = i % 2 === 0 ? [floor, measured] : [measured, floor];
        const byName = new Map<string, LoadResult>();
        for (const scenario of order) {
          byName.set(scenario.name, await runScenario({ ...scenario, durationSeconds: sliceSeconds }));
          await settle();
        }
        slices.push({ floor: byName.get(floor.name)!, measured: byName.get(measured.name)! });
      }
      const combined = combineSlices(floor.name, slices.map((slice) => slice.floor));
      const ours = combineSlices(measured.name, slices.map((slice) => slice.measured));
      results.push(combined, ours);
      const ratios = slices.map((slice) => slice.measured.requestsPerSecond / slice.floor.requestsPerSecond);
      for (const result of [combined, ours]) {
        process.stdout.write(`${result.name}: ${result.requestsPerSecond} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}\n`);
      }
      process.stdout.write(`ratio per slice pair: ${ratios.map((r) => r.toFixed(2)).join(", ")}\n`);
      return { floor: combined, measured: ours, ratios };
    };

    // Page 1 against its floor: this machine's speed drifts by tens of percent
    // over minutes, so the two are measured in alternating slices (floor, api,
    // api, floor, ...) and compared slice pair by slice pair.
    const page1Pair = await measurePair(
      { name: "naive floor: page 1 (OFFSET + count(*))", url: `http://127.0.0.1:${naivePort}/naive/${seeded.companyKey}/${seeded.regularCreditorKey}?page=1&limit=20`, durationSeconds: duration },
      { name: "GET /debts/by-creditor/{id}?limit=20 page 1", url: `${base}/external-api/v1/debts/by-creditor/${seeded.regularCreditorId}?limit=20`, headers: auth, durationSeconds: duration },
    );
    const floorPage1 = page1Pair.floor;
    const page1 = page1Pair.measured;
    const floorPage500 = await measure({ name: "naive floor: page 450 (OFFSET 8,980)", url: `http://127.0.0.1:${naivePort}/naive/${seeded.companyKey}/${seeded.regularCreditorKey}?page=450&limit=20`, durationSeconds: duration });
    const page450 = await measure({ name: "GET /debts/by-creditor/{id}?limit=20 page 450 (last page)", url: `${base}/external-api/v1/debts/by-creditor/${seeded.regularCreditorId}?limit=20&page=450`, headers: auth, durationSeconds: duration });
    const page500Big = await measure({ name: "GET /debts/by-creditor/{big}?limit=20 page 500", url: `${base}/external-api/v1/debts/by-creditor/${seeded.bigCreditorId}?limit=20&page=500`, headers: auth, durationSeconds: duration });
    const deepCeiling = await measure({ name: "ceiling: the page 500 query alone (no auth, no total)", url: `http://127.0.0.1:${naivePort}/page-only/${seeded.companyKey}/${seeded.bigCreditorKey}?page=500&limit=20`, durationSeconds: duration });
    // Page 500 of the same creditor by cursor (docs/decisions/0595) against its page 1, in alternating slices.
    const bigList = `/external-api/v1/debts/by-creditor/${seeded.bigCreditorId}`;
    const cursor500 = await cursorOfPage(base, auth, bigList, 500, 20);
    const cursorPair = await measurePair(
      { name: "GET /debts/by-creditor/{big}?limit=20 page 1", url: `${base}${bigList}?limit=20`, headers: auth, durationSeconds: duration },
      { name: "GET /debts/by-creditor/{big}?limit=20 page 500 by cursor", url: `${base}${bigList}?limit=20&cursor=${cursor500}`, headers: auth, durationSeconds: duration },
    );
    // The same 100-debt page uncompressed and in brotli (docs/decisions/0582), in alternating slices: the cost of compression.
    const activePair = await measurePair(
      { name: "GET /debts?status=active&limit=100", url: `${base}/external-api/v1/debts?status=active&limit=100`, headers: auth, durationSeconds: duration },
      { name: "GET /debts?status=active&limit=100, Accept-Encoding: br, gzip", url: `${base}/external-api/v1/debts?status=active&limit=100`, headers: { ...auth, "accept-encoding": "br, gzip" }, durationSeconds: duration },
    );
    const active = activePair.floor;
    const create = await measure({
      name: "POST /debts",
      url: `${base}/external-api/v1/debts`,
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ firstname: "Bench", lastname: "Debtor", email: "bench@example.com", amount: 120.5, currency: "EUR" }),
      durationSeconds: duration,
    });

    const deepPageAlone = await sequentialLatency(200, () => fetch(`${base}/external-api/v1/debts/by-creditor/${seeded.bigCreditorId}?limit=20&page=500`, { headers: auth }));
    process.stdout.write(`page 500 of the 100,000-debt creditor, one connection: p50 ${deepPageAlone.p50} ms, p99 ${deepPageAlone.p99} ms\n`);
    const cursorPageAlone = await sequentialLatency(200, () => fetch(`${base}${bigList}?limit=20&cursor=${cursor500}`, { headers: auth }));
    process.stdout.write(`page 500 by cursor of the 100,000-debt creditor, one connection: p50 ${cursorPageAlone.p50} ms, p99 ${cursorPageAlone.p99} ms\n`);
    const total = await sequentialLatency(200, () => fetch(`${base}/external-api/v1/debts/by-creditor/${seeded.bigCreditorId}?limit=1`, { headers: auth }));
    process.stdout.write(`total on the 100,000-debt creditor (whole request, sequential): p50 ${total.p50} ms, p99 ${total.p99} ms\n`);

    const batchBody = JSON.stringify({
      batch_name: "bench",
      debts: Array.from({ length: 1000 }, (_, index) => ({ temp_id: `t${index}`, firstname: "Batch", lastname: `Debtor ${index}`, email: `batch${index}@example.com`, amount: 50 + index, currency: "EUR" })),
    });
    const batch = await sequentialLatency(7, () => fetch(`${base}/external-api/v1/debts/batch`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: batchBody }));
    process.stdout.write(`POST /debts/batch with 1,000 debts: p50 ${batch.p50} ms (7 runs), failures ${batch.failures}\n`);

    const memory = rssOf(api.pid);
    process.stdout.write(`api RSS ${memory.rssMb} MB, peak ${memory.peakMb} MB\n`);

    const row = (r: LoadResult, note = "") => `| ${r.name} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.non2xx + r.errors} | ${note} |`;
    writeSection(
      "resource-endpoints",
      [
        "## Resource endpoints (api)",
        "",
        `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, embedded PostgreSQL 18, one api process (production mode with the memory settings of docs/decisions/0015, LOG_LEVEL=warn, rate limits counted with RATE_LIMIT_SCALE=1000000), ${seeded.debts.toLocaleString("en")} debts; load average ${loadavg().map((load) => load.toFixed(2)).join(" ")} at the end. Command: \`${process.env["BENCH_DURATION_SECONDS"] === undefined ? "" : `BENCH_DURATION_SECONDS=${duration} `}node apps/api/bench/run.ts\`, the first part of \`pnpm --filter @dc/api bench\` (${duration} s per scenario, 50 connections, after a 2 s warm-up; each pair marked below in ${PAIR_SLICES} alternating slices of ${Math.max(1, Math.round(duration / PAIR_SLICES))} s each, compared slice pair by slice pair, because this machine's speed drifts over minutes).`,
        "",
        "| scenario | req/s | p50 ms | p99 ms | non-2xx + errors | vs floor |",
        "|---|---|---|---|---|---|",
        row(floorPage1, "pair: floor"),
        row(floorPage500, "floor"),
        row(page1, `pair: ${medianOf(page1Pair.ratios).toFixed(2)}x throughput, median of ${PAIR_SLICES} slice pairs (${page1Pair.ratios.map((r) => r.toFixed(2)).join(", ")}; target ≥ 1.0x)`),
        row(page450, `p50 ${page450.p50} ms (target < 15 ms); floor p50 ${floorPage500.p50} ms`),
        row(page500Big, `p50 ${page500Big.p50} ms (target < 15 ms)`),
        row(deepCeiling, "ceiling of any OFFSET page 500"),
        row(cursorPair.floor, "pair: page 1 of the same creditor"),
        row(cursorPair.measured, `pair: ${medianOf(cursorPair.ratios).toFixed(2)}x page 1's throughput, median of ${PAIR_SLICES} slice pairs (${cursorPair.ratios.map((r) => r.toFixed(2)).join(", ")}; target ≥ 0.9x)`),
        row(active, "pair: uncompressed"),
        row(activePair.measured, `pair: ${medianOf(activePair.ratios).toFixed(2)}x the uncompressed throughput, median of ${PAIR_SLICES} slice pairs (${activePair.ratios.map((r) => r.toFixed(2)).join(", ")})`),
        row(create, ""),
        "",
        `- Page 500 of the 100,000-debt creditor from one connection (sequential requests, so no queueing): p50 ${deepPageAlone.p50} ms, p99 ${deepPageAlone.p99} ms (target < 15 ms). At 50 connections the p50 above is mostly time spent waiting in line: by Little's law it is about 50 / throughput, so a p50 under 15 ms at 50 connections would need more than 3,300 req/s, ${(3300 / floorPage1.requestsPerSecond).toFixed(1)} times the naive floor's page 1 on this machine.`,
        `- Page 500 of the 100,000-debt creditor by cursor from one connection: p50 ${cursorPageAlone.p50} ms, p99 ${cursorPageAlone.p99} ms (by page number: ${deepPageAlone.p50} ms and ${deepPageAlone.p99} ms). Its cursor is found by walking the 499 pages before it, and checked to read the rows of page 500 by number.`,
        `- The ceiling row serves page 500 of the same creditor with nothing but its query (prepared, ids walked in an index-only scan, then the page's rows; no authentication, no \`total\`, no encoding): ${deepCeiling.requestsPerSecond} req/s, p50 ${deepCeiling.p50} ms. What bounds it is PostgreSQL walking the 9,980 skipped index entries on every request, not the api.`,
        `- \`total\` on the 100,000-debt creditor, whole request \`?limit=1\`, sequential: p50 ${total.p50} ms, p99 ${total.p99} ms (target < 20 ms).`,
        `- \`POST /debts/batch\` with 1,000 debts: p50 ${batch.p50} ms over 7 runs (target < 150 ms), ${batch.failures} failures.`,
        `- API RSS after the run: ${memory.rssMb} MB, peak ${memory.peakMb} MB (target < 250 MB).`,
      ].join("\n"),
    );
  } finally {
    for (const child of children) child.kill("SIGTERM");
    await api?.stop();
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
