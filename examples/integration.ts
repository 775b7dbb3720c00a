/**
 * A complete integration with @dc/client, end to end: get a token, create
 * debts, keep a campaign in sync with two daily snapshots sent in chunks
 * (the second one carries payments), and read the payments the platform
 * recorded. Run it against a running api and worker:
 *
 *   BASE_URL=http://localhost:3000 CLIENT_ID=dcc_... CLIENT_SECRET=dcs_... CAMPAIGN=acme-1a93c1 \
 *     npx pnpm exec node examples/integration.ts
 *
 * (`pnpm exec` runs the repository's Node 24: a plain `node` strips types only from 22.18.)
 *
 * (`npx pnpm --silent cli tenant create --name "Acme"` prints the last three.)
 * In your own project, import from "@dc/client" and "@dc/client/snapshots" instead of the relative paths.
 */
import { randomBytes } from "node:crypto";
import { createClient, DebtCollectionError, describe, paginate, unwrap } from "../packages/client/src/index.ts";
import {
  sendSnapshot,
  type SnapshotAcknowledgement,
  type SnapshotRow,
  waitForSnapshot,
} from "../packages/client/src/snapshots/index.ts";

const say = (line: string) => process.stdout.write(`${line}\n`);

const setting = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === "") {
    process.stderr.write(`missing environment variable ${name} (BASE_URL, CLIENT_ID, CLIENT_SECRET, CAMPAIGN)\n`);
    process.exit(2);
  }
  return value;
};

const api = createClient({
  baseUrl: setting("BASE_URL"),
  clientId: setting("CLIENT_ID"),
  clientSecret: setting("CLIENT_SECRET"),
  scope: "debts:read debts:write",
  headers: { "user-agent": "dc-example-integration/1.0" },
  onRetry: (event) => say(`  (retrying ${event.method} ${new URL(event.url).pathname} in ${event.delayMs} ms after ${event.status ?? "a network error"})`),
});
const campaign = setting("CAMPAIGN");
// One run's references: export ids from your accounting system, never a date alone.
const run = randomBytes(4).toString("hex");

const main = async (): Promise<void> => {
  // 1. A token (the client would get it by itself on the first call).
  const token = await api.tokens.get();
  say(`token: scope "${token.scope}", valid for ${Math.round((token.expiresAt - Date.now()) / 1000)} s`);

  // 2. Debts created one by one. POST is never retried blindly: internal_id makes a manual retry safe (409 if it exists).
  const created: string[] = [];
  const debtors = [
    { firstname: "Jane", lastname: "Doe", email: "jane.doe@example.com" },
    { firstname: "John", lastname: "Roe", email: "john.roe@example.com" },
    { firstname: "Ada", lastname: "Lovelace", email: "ada@example.com" },
  ];
  for (const [index, debtor] of debtors.entries()) {
    const result = await api.POST("/external-api/v1/debts", {
      body: { ...debtor, amount: 120.5 + index, currency: "EUR", internal_id: `INV-${run}-${index + 1}` },
    });
    if (result.error) throw new DebtCollectionError(result.error);
    created.push(result.data.data.id);
  }
  say(`created debts: ${created.length}`);

  // 3. Monday's complete snapshot of the campaign: 2,500 accounts, sent as chunks of 1,000 rows.
  const accounts = Array.from({ length: 2_500 }, (_, i): SnapshotRow => ({
    internal_id: `ACC-${run}-${String(i + 1).padStart(4, "0")}`,
    remaining_amount: 100 + (i % 50),
    currency: "EUR",
    firstname: "Customer",
    lastname: `#${i + 1}`,
  }));
  const monday = await sync(`export-${run}-monday`, accounts);
  say(`snapshot monday: ${monday.status}, ${monday.counts?.rows} rows in ${monday.received_chunk_count} chunks, ${monday.counts?.created} debts created`);

  // 4. Tuesday's snapshot: two customers paid part of their balance, one paid everything (and is left out).
  const tuesday = await sync(
    `export-${run}-tuesday`,
    accounts
      .slice(1)
      .map((row, i) => (i < 2 ? { ...row, remaining_amount: row.remaining_amount - 25 } : row)),
  );
  say(`snapshot tuesday: ${tuesday.status}, ${tuesday.counts?.updated} updated, ${tuesday.counts?.settled} settled, ${tuesday.counts?.payments} payments`);

  // 5. The payments the platform recorded, found through the paginated debt list.
  let payments = 0;
  let total = 0;
  for await (const debt of paginate((cursor) =>
    api.GET("/external-api/v1/debts", { params: { query: { cursor, limit: 100, search: `ACC-${run}-000` } } }),
  )) {
    for (const payment of unwrap(await api.GET("/external-api/v1/debts/{id}/payments", { params: { path: { id: debt.id } } })).data) {
      payments++;
      total += payment.amount;
    }
  }
  say(`payments read: ${payments}, ${total.toFixed(2)} EUR`);
};

/** Sends one complete snapshot (validated locally, chunked, resumable) and waits for the worker to apply it. */
const sync = async (reference: string, rows: ReadonlyArray<SnapshotRow>): Promise<SnapshotAcknowledgement> => {
  await sendSnapshot(api, { campaign, reference, rows, maxRows: 1_000 });
  const done = await waitForSnapshot(api, { campaign, reference, intervalMs: 500, timeoutMs: 120_000 });
  if (done.status === "failed") throw new Error(`snapshot ${reference} failed: ${JSON.stringify(done.failure)}`);
  return done;
};

try {
  await main();
  say("done");
} catch (error) {
  process.stderr.write(`${error instanceof DebtCollectionError ? describe(error.error) : String(error)}\n`);
  if (error instanceof DebtCollectionError && error.error.kind === "api" && error.error.details) {
    for (const [field, reason] of Object.entries(error.error.details).slice(0, 10)) process.stderr.write(`  ${field}: ${reason}\n`);
  }
  process.exitCode = 1;
}
