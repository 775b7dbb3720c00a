/**
 * Development aid: one company, one creditor with 9,000 debts, one api
 * process under `--cpu-prof`, autocannon on one URL for a few seconds.
 * Usage: node bench/profile.ts [path-and-query] [seconds] [connections]
 * Prints the throughput and the database transactions per request, and
 * writes the CPU profile under /tmp/dc-profile.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase, migrateAll, repositoryRoot, startEmbeddedPostgres } from "@dc/db";
import { sql } from "kysely";
import { createTenant } from "../src/admin/tenants.ts";
import { makeIds } from "../src/ids.ts";
import { runScenario } from "./load.ts";

const [pathArg = "/external-api/v1/debts/by-creditor/{creditor}?limit=20", secondsArg = "10", connectionsArg = "50"] = process.argv.slice(2);
const root = repositoryRoot();
const ID_KEY = randomBytes(36).toString("base64");
const server = await startEmbeddedPostgres({ dataDir: join(tmpdir(), `dc-prof-${randomBytes(4).toString("hex")}`), port: 54900 + Math.floor(Math.random() * 90), ephemeral: true });
const db = createDatabase({ connectionString: server.url, max: 2 });
await migrateAll(db, server.url);
const ids = makeIds(new TextEncoder().encode(ID_KEY));
const tenant = await createTenant(db, ids, "Profile Company");
const companyKey = ids.decode("company", tenant.company_id)!;
const creditorKey = ids.decode("creditor", tenant.creditor_id)!;
await sql`
  insert into debts (company_id, creditor_id, status, amount_minor, balance_minor, currency, amount_text, firstname, lastname, email, internal_id, created_at, import_date)
  select ${companyKey}, ${creditorKey}, 'status.default.pending', 10000 + g, 10000 + g, 'EUR', to_char((10000 + g) / 100.0, 'FM999999990.00'),
         'First' || g, 'Last' || g, 'debtor' || g || '@example.com', 'P-' || g, timestamptz '2026-01-01' + (g || ' minutes')::interval, now()
  from generate_series(1, 9000) g`.execute(db);
await sql`vacuum analyze`.execute(db);
/** The same server through its Unix-domain socket in /tmp. */
const viaSocket = (url: string) => {
  const parsed = new URL(url);
  return `postgres://${parsed.username}:${parsed.password}@/${parsed.pathname.slice(1)}?host=/tmp&port=${parsed.port}`;
};
const port = 3990;
// PROFILE_NODE_FLAGS replaces the profiler flags (e.g. to try heap settings without the profiler's own memory).
const nodeFlags = process.env["PROFILE_NODE_FLAGS"]?.split(" ").filter(Boolean) ?? ["--cpu-prof", "--cpu-prof-dir=/tmp/dc-profile"];
const api = spawn(process.execPath, [...nodeFlags, join(root, "apps/api/src/main.ts")], {
  env: { ...process.env, NODE_ENV: "production", DATABASE_URL: process.env["PROFILE_SOCKET"] ? viaSocket(server.url) : server.url, ID_ENCRYPTION_KEY: ID_KEY, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn", RATE_LIMIT_SCALE: "1000000" },
  stdio: ["ignore", "inherit", "inherit"],
});
const base = `http://127.0.0.1:${port}`;
for (let attempt = 0; ; attempt++) {
  try {
    if ((await fetch(`${base}/healthz`)).ok) break;
  } catch {
    if (attempt > 100) throw new Error("api did not start");
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const rss = () => /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${api.pid}/status`, "utf8"))?.[1];
process.stdout.write(`api RSS at start: ${Number(rss()) >> 10} MB\n`);
const tokenResponse = await fetch(`${base}/oauth/token`, {
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams({ grant_type: "client_credentials", client_id: tenant.client_id, client_secret: tenant.client_secret }),
});
const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
const url = base + pathArg.replace("{creditor}", tenant.creditor_id);
await runScenario({ name: "warm-up", url, headers: { authorization: `Bearer ${token}` }, durationSeconds: 2, connections: Number(connectionsArg) });
const commits = async () =>
  Number((await sql<{ n: string }>`select xact_commit::text as n from pg_stat_database where datname = current_database()`.execute(db)).rows[0]!.n);
const commitsBefore = await commits();
const result = await runScenario({ name: pathArg, url, headers: { authorization: `Bearer ${token}` }, durationSeconds: Number(secondsArg), connections: Number(connectionsArg) });
const statements = (await commits()) - commitsBefore;
process.stdout.write(`api RSS after the run: ${Number(rss()) >> 10} MB\n`);
process.stdout.write(`${JSON.stringify(result)}\ntransactions per request: ${(statements / result.total).toFixed(2)}\n`);
api.kill("SIGTERM");
await new Promise((resolve) => api.once("exit", resolve));
await db.destroy();
await server.stop();
