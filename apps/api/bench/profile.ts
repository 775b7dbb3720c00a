/**
 * Development aid: one company, one creditor with 9,000 debts, one api
 * process under `--cpu-prof`, autocannon on one URL for a few seconds.
 * Usage: node bench/profile.ts [path-and-query] [seconds] [connections]
 * Prints the throughput, the database transactions per request and the api's
 * RSS, and writes the CPU profile under /tmp/dc-profile. PROFILE_NODE_OPTIONS
 * replaces the api's NODE_OPTIONS (e.g. to try heap settings without the
 * profiler's own memory).
 */
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { createTenant } from "../src/admin/tenants.ts";
import { makeIds } from "@dc/db";
import { API_NODE_OPTIONS } from "../src/runtime.ts";
import { runScenario } from "./load.ts";
import { fetchToken, freePort, rssOf, startApiService, startBenchDatabase } from "./processes.ts";

const [pathArg = "/external-api/v1/debts/by-creditor/{creditor}?limit=20", secondsArg = "10", connectionsArg = "50"] = process.argv.slice(2);
const ID_KEY = randomBytes(36).toString("base64");

const database = await startBenchDatabase();
try {
  const { db } = database;
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

  const nodeOptions = process.env["PROFILE_NODE_OPTIONS"] ?? `${API_NODE_OPTIONS} --cpu-prof --cpu-prof-dir=/tmp/dc-profile`;
  const api = await startApiService({
    databaseUrl: database.url,
    idKey: ID_KEY,
    port: await freePort(),
    rateLimitScale: 1_000_000,
    env: { NODE_OPTIONS: nodeOptions },
  });
  try {
    process.stdout.write(`api RSS at start: ${rssOf(api.pid).rssMb} MB\n`);
    const headers = { authorization: `Bearer ${await fetchToken(api.url, tenant)}` };
    const url = api.url + pathArg.replace("{creditor}", tenant.creditor_id);
    const connections = Number(connectionsArg);
    await runScenario({ name: "warm-up", url, headers, durationSeconds: 2, connections });
    const commits = async () =>
      Number((await sql<{ n: string }>`select xact_commit::text as n from pg_stat_database where datname = current_database()`.execute(db)).rows[0]!.n);
    const commitsBefore = await commits();
    const result = await runScenario({ name: pathArg, url, headers, durationSeconds: Number(secondsArg), connections });
    const statements = (await commits()) - commitsBefore;
    process.stdout.write(`api RSS after the run: ${rssOf(api.pid).rssMb} MB\n`);
    process.stdout.write(`${JSON.stringify(result)}\ntransactions per request: ${(statements / result.total).toFixed(2)}\n`);
  } finally {
    // A graceful stop, so the profiler writes its file.
    await api.stop();
  }
} finally {
  await database.close();
}
