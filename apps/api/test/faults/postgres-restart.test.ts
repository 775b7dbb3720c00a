/**
 * Fault: PostgreSQL restarts while the api is under load. The api
 * runs as deployed (`node apps/api/src/main.ts`) on a cluster of this file's
 * own, which is stopped (fast shutdown) for ~2 s and started again on the same
 * port and data directory. During the outage every failed request must be a
 * 503 error envelope, never a 500, a hang or a reset connection; afterwards
 * the same api process must serve again within a bounded time, and the
 * database must hold exactly the debts whose creation was acknowledged.
 * `/oauth/token` answers the outage in OAuth's error shape with `Retry-After`.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { createDatabase } from "@dc/db";
import { afterAll, expect, it, onTestFailed } from "vitest";
import { createTenant, startApiProcess } from "../../../../packages/client/test/support/processes.ts";
import { errorEnvelopeProblems } from "./support/error-envelope.ts";
import { type LoadOperation, type Outcome, startLoad } from "./support/load.ts";
import { startRestartablePostgres } from "./support/restartable-postgres.ts";

const OUTAGE_MS = 2_000;
const RECOVERY_BOUND_MS = 10_000;
const REQUEST_TIMEOUT_MS = 8_000;
const RUN = `PGRESTART-${Date.now().toString(36)}`;

const postgres = await startRestartablePostgres();
const api = await startApiProcess(postgres.url);
const tenant = await createTenant(postgres.url, "Restart Resilience Ltd");
const db = createDatabase({ connectionString: postgres.url, max: 1 });
afterAll(() => db.destroy());

/** The tenant's client-credentials token request (`init` adds, e.g., a timeout). */
const requestToken = (init: RequestInit = {}) =>
  fetch(`${api.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: tenant.client_id,
      client_secret: tenant.client_secret,
    }),
    ...init,
  });

const tokenResponse = await requestToken();
if (tokenResponse.status !== 200)
  throw new Error(`token request failed: ${tokenResponse.status} ${await tokenResponse.text()}`);
const { access_token: token } = (await tokenResponse.json()) as { access_token: string };

const createDebt =
  (loop: string) =>
  (sequence: number): { path: string; json: unknown; internalId: string } => {
    const internalId = `${RUN}-${loop}-${sequence}`;
    // A debtor reference makes each create write two rows (debtor and debt) in one transaction.
    const json = {
      amount: 10 + sequence,
      currency: "EUR",
      lastname: "Restart",
      internal_id: internalId,
      debtor_reference: `D-${internalId}`,
    };
    return { path: "/external-api/v1/debts", json, internalId };
  };

const operations: ReadonlyArray<LoadOperation> = [
  { name: "GET /company/profile", request: () => ({ path: "/external-api/v1/company/profile" }) },
  { name: "GET /debts", request: () => ({ path: "/external-api/v1/debts?limit=10" }) },
  { name: "POST /debts (a)", request: createDebt("a") },
  { name: "POST /debts (b)", request: createDebt("b") },
];

const succeeded = (outcome: Outcome) => outcome.status === 200 || outcome.status === 201;

const probe = async (path: string) => {
  const startedAt = performance.now();
  const response = await fetch(`${api.url}${path}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await response.text();
  return { status: response.status, text, ms: performance.now() - startedAt };
};

/** prom-client's `process_start_time_seconds`: unchanged means the same api process answered. */
const processStartTime = async (): Promise<string | undefined> =>
  /^process_start_time_seconds (\d+)$/m.exec((await probe("/metrics")).text)?.[1];

it("answers 503 envelopes while PostgreSQL is down and recovers without an api restart", async () => {
  onTestFailed(() => {
    process.stderr.write(`api output:\n${api.output().slice(-8_000)}\n`);
  });
  const startTime = await processStartTime();
  expect(startTime).toBeDefined();
  const load = startLoad(api.url, operations, { bearerToken: token, timeoutMs: REQUEST_TIMEOUT_MS, pauseMs: 20 });
  const { outcomes } = load;
  try {
    const warm = await load.until(
      (all) => operations.every((op) => all.filter((o) => o.operation === op.name && succeeded(o)).length >= 3),
      10_000,
    );
    expect(warm, "the load did not succeed before the fault").toBe(true);
    expect((await probe("/readyz")).status).toBe(200);

    const stopCalledAt = performance.now();
    await postgres.stop();
    const downAt = performance.now();
    const readyWhileDown = await probe("/readyz");
    expect(readyWhileDown.status).toBe(503);
    expect(JSON.parse(readyWhileDown.text)).toEqual({
      status: "not_ready",
      checks: { database: false, migrations: false },
    });
    // The OAuth endpoints fail in OAuth's shape (RFC 6749 5.2), the outage too, with the api's Retry-After.
    const tokenWhileDown = await requestToken({ signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    expect(tokenWhileDown.status).toBe(503);
    expect(tokenWhileDown.headers.get("retry-after")).toBe("5");
    expect(await tokenWhileDown.json()).toEqual({
      error: "temporarily_unavailable",
      error_description: "Service temporarily unavailable",
    });
    const everyOperationFailed = await load.until(
      (all) =>
        operations.every((op) => all.some((o) => o.operation === op.name && o.startedAt >= downAt && o.status === 503)),
      OUTAGE_MS,
    );
    await sleep(Math.max(0, downAt + OUTAGE_MS - performance.now()));
    expect(everyOperationFailed, "some operation never failed while PostgreSQL was down").toBe(true);

    await postgres.start();
    const upAt = performance.now();
    const recovered = await load.until(
      (all) =>
        operations.every((op) => all.some((o) => o.operation === op.name && o.startedAt >= upAt && succeeded(o))),
      RECOVERY_BOUND_MS,
    );
    expect(recovered, `not every operation succeeded within ${RECOVERY_BOUND_MS} ms of PostgreSQL's restart`).toBe(
      true,
    );
    // Recovered once every operation has succeeded again (a request sent while PostgreSQL was starting may count).
    const recoveredAt = Math.max(
      ...operations.map(
        (op) => outcomes.find((o) => o.operation === op.name && o.endedAt >= upAt && succeeded(o))!.endedAt,
      ),
    );
    // Recovery is complete, not intermittent: everything sent afterwards succeeds.
    await sleep(750);
    await load.stop();
    const readyAfter = await probe("/readyz");
    expect(readyAfter.status).toBe(200);

    const failures = outcomes.filter((o) => o.failure !== undefined);
    expect(failures, "requests without a response (reset, refused or timed out)").toEqual([]);
    const unexpected = outcomes.filter((o) => !succeeded(o) && o.status !== 503);
    expect(unexpected, "statuses other than 200, 201 and 503").toEqual([]);
    const unavailable = outcomes.filter((o) => o.status === 503);
    for (const outcome of unavailable) {
      expect(outcome.body).toEqual({ error: true, message: "Service temporarily unavailable", code: 503 });
      expect(errorEnvelopeProblems(outcome.body)).toEqual([]);
      expect(outcome.retryAfter).toBe("5");
    }
    expect(
      unavailable.filter((o) => o.endedAt < stopCalledAt || o.startedAt > recoveredAt),
      "503 outside the outage",
    ).toEqual([]);
    const afterRecovery = outcomes.filter((o) => o.startedAt > recoveredAt);
    expect(afterRecovery.length).toBeGreaterThanOrEqual(operations.length * 3);
    expect(afterRecovery.filter((o) => !succeeded(o))).toEqual([]);
    expect(Math.max(...outcomes.map((o) => o.endedAt - o.startedAt))).toBeLessThan(REQUEST_TIMEOUT_MS);

    expect(await processStartTime(), "the api process was replaced").toBe(startTime);
    expect((await probe("/healthz")).status).toBe(200);

    const created = new Set(outcomes.filter((o) => o.status === 201).map((o) => o.internalId!));
    const refused = new Set(
      outcomes.filter((o) => o.status === 503 && o.internalId !== undefined).map((o) => o.internalId!),
    );
    const stored = await db
      .selectFrom("debts")
      .leftJoin("debtors", "debtors.id", "debts.debtor_id")
      .select(["debts.internal_id as internalId", "debtors.debtor_reference as debtorReference"])
      .where("debts.internal_id", "like", `${RUN}-%`)
      .execute();
    const storedIds = new Set(stored.map((row) => row.internalId!));
    expect(
      [...created].filter((id) => !storedIds.has(id)),
      "acknowledged debts lost",
    ).toEqual([]);
    expect(
      [...refused].filter((id) => storedIds.has(id)),
      "debts stored although their create got 503",
    ).toEqual([]);
    expect(
      [...storedIds].filter((id) => !created.has(id)),
      "debts stored without an acknowledgement",
    ).toEqual([]);
    expect(
      stored.filter((row) => row.debtorReference !== `D-${row.internalId}`),
      "debts without their debtor",
    ).toEqual([]);
    expect(refused.size).toBeGreaterThan(0);

    const first503 = Math.min(...unavailable.map((o) => o.endedAt));
    process.stdout.write(
      `postgres-restart: ${outcomes.length} requests, ${unavailable.length} answered 503 (first ${Math.round(first503 - stopCalledAt)} ms after the stop), ` +
        `${created.size} debts created, ${refused.size} refused; shutdown took ${Math.round(downAt - stopCalledAt)} ms, ` +
        `down ${Math.round(upAt - downAt)} ms until it accepted connections again; recovered ${Math.round(recoveredAt - upAt)} ms after PostgreSQL accepted connections; ` +
        `readyz while down answered in ${Math.round(readyWhileDown.ms)} ms\n`,
    );
  } finally {
    await load.stop();
  }
}, 45_000);
