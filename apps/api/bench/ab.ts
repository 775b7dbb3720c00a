/**
 * `node apps/api/bench/ab.ts <page1|batch|snapshot> <checkout> <checkout>...`:
 * an A/B run of the same headline figure across checkouts of this repository
 * (git worktrees with their own `node_modules`), on one embedded PostgreSQL.
 * Each checkout gets a database migrated by its own code
 * (`packages/db/src/scripts/migrate.ts`) and its own api (and worker, for
 * `snapshot`), all in production mode. Then `AB_ROUNDS` rounds (default 4),
 * each measuring every checkout once, the order reversed every other round
 * (A B, B A, ...), because this machine's speed drifts over minutes:
 *
 * - `page1`: GET /debts/by-creditor/{id}?limit=20 on a 9,000-debt creditor,
 *   50 connections for `AB_SLICE_SECONDS` (default 4) after a warm-up: req/s;
 * - `batch`: POST /debts/batch with 1,000 debts, 5 sequential requests: p50 ms;
 * - `snapshot`: a campaign of 20,000 debts (seeded by a first snapshot) receives
 *   the 20,000-row lean snapshot: PUT to `completed`, ms.
 *
 * Each measure also reads the CPU time its checkout's processes (api, and
 * worker for `snapshot`) spent, from `/proc/<pid>/stat`, per request, batch
 * or snapshot: on a machine shared with other work, throughput and latency
 * swing with the load, CPU time per unit of work much less.
 *
 * Prints each round's figures and each checkout's ratios to the first one.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { cpus } from "node:os";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createDatabase, freePort, startEmbeddedPostgres, withDatabaseName } from "@dc/db";
import { benchSeedRows, benchSnapshotRows } from "@dc/testing";
import { sql } from "kysely";
import { createCampaign, createCreditor, createTimeline } from "../src/admin/collection-setup.ts";
import { createTenant } from "../src/admin/tenants.ts";
import { makeIds } from "@dc/db";
import { runScenario, sequentialLatency } from "./load.ts";
import { fetchToken, type Service, startApiService, startWorkerService } from "./processes.ts";
import { seed } from "./seed.ts";

type Mode = "page1" | "batch" | "snapshot";
const [modeArgument, ...checkouts] = process.argv.slice(2);
if (!["page1", "batch", "snapshot"].includes(modeArgument ?? "") || checkouts.length < 2) {
  process.stderr.write("usage: node apps/api/bench/ab.ts <page1|batch|snapshot> <checkout> <checkout>...\n");
  process.exit(2);
}
const mode = modeArgument as Mode;
const roots = checkouts.map((checkout) => resolve(checkout));
const ROUNDS = Number(process.env["AB_ROUNDS"] ?? 4);
const SLICE_SECONDS = Number(process.env["AB_SLICE_SECONDS"] ?? 4);
const ID_KEY = randomBytes(36).toString("base64");
const ids = makeIds(new TextEncoder().encode(ID_KEY));

/** Runs a checkout's own migrations on `url`. */
const migrateWith = (root: string, url: string): Promise<void> =>
  new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(root, "packages/db/src/scripts/migrate.ts")], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: url },
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.once("exit", (code) => (code === 0 ? done() : fail(new Error(`migrations of ${root} exited ${code}`))));
  });

interface Figure {
  /** req/s for page1, ms otherwise. */
  readonly value: number;
  /** The units of work measured: requests, batches or snapshots. */
  readonly units: number;
}

interface Side {
  readonly root: string;
  readonly pids: number[];
  readonly measure: () => Promise<Figure>;
}

/** CPU time (user + system) a process has used so far, in ms. */
const cpuMsOf = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command; clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const batchBody = JSON.stringify({
  batch_name: "ab",
  debts: Array.from({ length: 1000 }, (_, index) => ({
    temp_id: `t${index}`,
    firstname: "Batch",
    lastname: `Debtor ${index}`,
    email: `batch${index}@example.com`,
    amount: 50 + index,
    currency: "EUR",
  })),
});

const main = async () => {
  const server = await startEmbeddedPostgres({
    dataDir: join(tmpdir(), `dc-ab-${randomBytes(4).toString("hex")}`),
    port: await freePort(),
    ephemeral: true,
  });
  const admin = createDatabase({ connectionString: server.url, max: 1 });
  const services: Service[] = [];
  const closers: Array<() => Promise<void>> = [];
  try {
    const sides: Side[] = [];
    for (const [index, root] of roots.entries()) {
      const name = `ab_${index}`;
      await sql`create database ${sql.id(name)}`.execute(admin);
      const url = withDatabaseName(server.url, name);
      await migrateWith(root, url);
      const db = createDatabase({ connectionString: url, max: 4 });
      closers.push(() => db.destroy());
      const api = await startApiService({ databaseUrl: url, idKey: ID_KEY, port: await freePort(), rateLimitScale: 1_000_000, root });
      services.push(api);
      if (mode === "snapshot") {
        const worker = startWorkerService({ databaseUrl: url, idKey: ID_KEY, root });
        services.push(worker);
        const tenant = await createTenant(db, ids, "AB");
        const companyId = ids.decode("company", tenant.company_id)!;
        const creditor = await createCreditor(db, { companyId, name: "Ledger" });
        const timeline = await createTimeline(db, companyId, "Default");
        const headers = { authorization: `Bearer ${await fetchToken(api.url, tenant)}`, "content-type": "application/json" };
        const at = (campaign: string, reference: string) => `${api.url}/external-api/v1/campaigns/${campaign}/snapshots/${reference}`;
        const put = async (url: string, body: string) => {
          const response = await fetch(url, { method: "PUT", headers, body });
          if (response.status !== 202) throw new Error(`PUT ${url}: ${response.status} ${await response.text()}`);
        };
        const untilDone = async (url: string) => {
          for (;;) {
            const response = await fetch(url, { headers: { ...headers, prefer: "wait=30" } });
            const { data } = (await response.json()) as { data: { status: string } };
            if (data.status === "completed") return performance.now();
            if (data.status === "failed") throw new Error(`snapshot ${url} failed`);
          }
        };
        const seedBody = JSON.stringify({ rows: benchSeedRows("lean") });
        const body = JSON.stringify({ rows: benchSnapshotRows("lean") });
        let campaigns = 0;
        sides.push({
          root,
          pids: [api.pid, worker.pid],
          measure: async () => {
            const campaign = `ab-${++campaigns}`;
            await createCampaign(db, { companyId, apiReference: campaign, name: campaign, creditorId: creditor.id, timelineId: timeline.id });
            await put(at(campaign, "seed"), seedBody);
            await untilDone(at(campaign, "seed"));
            const started = performance.now();
            await put(at(campaign, "measured"), body);
            return { value: (await untilDone(at(campaign, "measured"))) - started, units: 1 };
          },
        });
        continue;
      }
      const seeded = await seed(db, ids, { companies: 1, creditorsPerCompany: 2, debtsPerCreditor: 9_000, bigCreditorDebts: 0 });
      const tenant = seeded.tenants[0]!;
      const auth = { authorization: `Bearer ${await fetchToken(api.url, tenant)}` };
      const page1 = { name: root, url: `${api.url}/external-api/v1/debts/by-creditor/${seeded.regularCreditorId}?limit=20`, headers: auth };
      await runScenario({ ...page1, durationSeconds: 2 });
      sides.push({
        root,
        pids: [api.pid],
        measure:
          mode === "page1"
            ? async () => {
                const result = await runScenario({ ...page1, durationSeconds: SLICE_SECONDS });
                await new Promise((settle) => setTimeout(settle, 1500));
                if (result.non2xx + result.errors > 0) throw new Error(`${root}: ${result.non2xx} non-2xx, ${result.errors} errors`);
                return { value: result.requestsPerSecond, units: result.total };
              }
            : async () => {
                const send = () =>
                  fetch(`${api.url}/external-api/v1/debts/batch`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: batchBody });
                const { p50, failures } = await sequentialLatency(5, send);
                if (failures > 0) throw new Error(`${root}: ${failures} failed batches`);
                return { value: p50, units: 5 };
              },
      });
    }
    if (mode === "batch") for (const side of sides) await side.measure();

    const unit = mode === "page1" ? "req/s" : "ms";
    process.stdout.write(`${mode} (${unit}), ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${ROUNDS} rounds\n`);
    const figures = sides.map(() => [] as number[]);
    const cpu = sides.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round++) {
      const order = sides.map((_, index) => index);
      if (round % 2 === 1) order.reverse();
      for (const index of order) {
        const side = sides[index]!;
        const before = side.pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0);
        const figure = await side.measure();
        const used = side.pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0) - before;
        figures[index]!.push(figure.value);
        cpu[index]!.push(used / figure.units);
      }
      const line = sides
        .map((side, index) => `${side.root}: ${figures[index]![round]!.toFixed(1)} ${unit}, ${cpu[index]![round]!.toFixed(3)} CPU ms/unit`)
        .join("; ");
      process.stdout.write(`round ${round + 1}: ${line}\n`);
    }
    const ratios = (series: number[][], index: number) =>
      series[index]!.map((value, round) => (value / series[0]![round]!).toFixed(3)).join(", ");
    for (const [index, side] of sides.entries()) {
      process.stdout.write(`${side.root} / ${sides[0]!.root}: ${unit} ${ratios(figures, index)}; CPU per unit ${ratios(cpu, index)}\n`);
    }
  } finally {
    for (const service of services) await service.stop();
    for (const close of closers) await close();
    await admin.destroy();
    await server.stop();
  }
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
