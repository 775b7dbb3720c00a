/**
 * What an integrator's plain JavaScript does with the installed `@dc/client`
 * (test/consumer-install.test.ts copies this file into a project outside the
 * repository and runs it with `node`): a token, a debt, a snapshot refused
 * locally by the domain's rules, a snapshot sent in chunks and applied by the
 * worker, a second one that records a payment, and that payment read back.
 * Every line it prints is asserted; any failure goes to stderr and exits 1.
 */
import { randomBytes } from "node:crypto";
import { createClient, DebtCollectionError, describe, paginate, unwrap } from "@dc/client";
import { prevalidateSnapshot, sendSnapshot, waitForSnapshot } from "@dc/client/snapshots";

const say = (line) => process.stdout.write(`${line}\n`);
const setting = (name) => {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(`missing environment variable ${name}`);
  return value;
};

const api = createClient({
  baseUrl: setting("BASE_URL"),
  clientId: setting("CLIENT_ID"),
  clientSecret: setting("CLIENT_SECRET"),
  scope: "debts:read debts:write",
});
const campaign = setting("CAMPAIGN");
const run = randomBytes(4).toString("hex");

const sync = async (reference, rows) => {
  let chunks = 0;
  await sendSnapshot(api, { campaign, reference, rows, maxRows: 2, onChunk: () => chunks++ });
  const done = await waitForSnapshot(api, { campaign, reference, intervalMs: 200, timeoutMs: 60_000 });
  if (done.status !== "completed")
    throw new Error(`snapshot ${reference}: ${done.status} ${JSON.stringify(done.failure)}`);
  return { done, chunks };
};

const main = async () => {
  const token = await api.tokens.get();
  say(`token: ${token.scope}`);

  const debt = unwrap(
    await api.POST("/external-api/v1/debts", {
      body: { firstname: "Jane", lastname: "Doe", amount: 120.5, currency: "EUR", internal_id: `INV-${run}` },
    }),
  ).data;
  say(`debt: ${debt.amount} ${debt.currency}`);

  // The domain's row rules run in this process, from @dc/domain's built JavaScript.
  const refused = prevalidateSnapshot([{ internal_id: `BAD-${run}`, remaining_amount: -1, currency: "EUR" }]);
  say(`refused locally: ${refused?.status} ${refused?.errorCode} ${Object.keys(refused?.details ?? {}).join(",")}`);

  const accounts = Array.from({ length: 5 }, (_, i) => ({
    internal_id: `ACC-${run}-${i + 1}`,
    remaining_amount: 100 + i,
    currency: "EUR",
    firstname: "Customer",
    lastname: `#${i + 1}`,
  }));
  const first = await sync(`export-${run}-1`, accounts);
  say(
    `snapshot 1: ${first.done.status}, ${first.done.counts?.rows} rows in ${first.chunks} chunks, ${first.done.counts?.created} created`,
  );

  const second = await sync(
    `export-${run}-2`,
    accounts.map((row, i) => (i === 0 ? { ...row, remaining_amount: row.remaining_amount - 25 } : row)),
  );
  say(
    `snapshot 2: ${second.done.status}, ${second.done.counts?.updated} updated, ${second.done.counts?.payments} payments`,
  );

  const payments = [];
  for await (const found of paginate((cursor) =>
    api.GET("/external-api/v1/debts", { params: { query: { cursor, limit: 100, search: `ACC-${run}-1` } } }),
  )) {
    for await (const payment of paginate((cursor) =>
      api.GET("/external-api/v1/debts/{id}/payments", { params: { path: { id: found.id }, query: { cursor, limit: 100 } } }),
    )) {
      payments.push(payment);
    }
  }
  say(`payments: ${payments.length}, ${payments.reduce((sum, payment) => sum + payment.amount, 0).toFixed(2)} EUR`);
};

try {
  await main();
  say("done");
} catch (error) {
  process.stderr.write(
    `${error instanceof DebtCollectionError ? describe(error.error) : (error?.stack ?? String(error))}\n`,
  );
  process.exitCode = 1;
}
