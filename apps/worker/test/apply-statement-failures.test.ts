/**
 * Unexpected failures, swept over every statement of a snapshot's
 * application: one representative snapshot (debts created, balances lowered
 * and raised with their payments, a plan replaced by one with a paid
 * installment, a plan cancelled, debts settled because omitted, for a
 * company with a subscribed webhook endpoint) is applied by the real worker
 * (`startWorker`, its `dc-worker` pool) once for each statement the job
 * runs (27 when this was written), with that statement made to fail
 * (`armFault` of @dc/testing).
 *
 * Whatever the statement (the earlier-snapshot check, the `processing` mark,
 * BEGIN, a read, a write, COMMIT), docs/decisions/0354 promises a retry:
 * the job throws, graphile-worker keeps it for another attempt, the snapshot
 * is not `completed` (it stays `pending`, or `processing` once marked so)
 * and no row of the company changed. The retry then completes the snapshot
 * exactly once, and the ledger it leaves is the ledger an untouched run of
 * the same snapshot leaves on an identical company. On the job's last
 * attempt the snapshot is `failed` with `processing_error` instead, the job
 * completes and no debt changed. Once the job runs fewer statements than
 * the fault waits for, it completes untouched, which proves each failure
 * was the fault's doing.
 *
 * Each position gets a fresh company seeded the same way. Two kinds of
 * failure: one nobody can classify, and the database unavailable (SQLSTATE
 * 57P01), which the worker must treat alike.
 */
import {
  armFault,
  companyDigest,
  disarmFault,
  type FaultOutcome,
  unexpectedError,
  rowsDigest,
  useTestDatabase,
} from "@dc/testing";
import { debtorLinks } from "@dc/crypto";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { applySnapshot } from "../src/snapshots/apply-snapshot.ts";
import { type Failure, quietWorkerPerTest, stopQuietWorker, unavailable, unexpected, workerConnections } from "./fault-sweep-worker.ts";
import { captureLogger } from "./log-capture.ts";
import { row, secondRows, seedRows } from "./snapshot-event-fixtures.ts";
import {
  enqueueApply,
  insertCampaign,
  insertSnapshot,
  ledgerViolations,
  snapshotState,
  testIds, testLinks,
  snapshotKey,
} from "./snapshot-fixtures.ts";
import { waitFor } from "./wait-for.ts";
import { insertEndpoint } from "./webhooks-fixtures.ts";

const { db, url } = await useTestDatabase();
const seededAt = new Date("2030-06-01T09:00:00.000Z");
const now = new Date("2030-06-15T12:00:00.000Z");
const { logger, records } = captureLogger();

/** The apply job cannot run more statements than this; reaching it means the sweep is broken. */
const MAX_STATEMENTS = 200;

/**
 * The seed plus i (30, raised to 45 by the snapshot: a negative adjustment)
 * and the snapshot of snapshot-event-fixtures.ts plus i: every kind of write.
 */
const seed = [...seedRows, row("i", 30)];
const snapshotRows = [...secondRows, row("i", 45)];

/**
 * The real worker. Jobs start only when announced (add_job, a queue
 * unlocked, the test's NOTIFY), never by a poll. Its stale-lock sweep runs
 * at start-up, then every 60 s on the counted pool: each test has a worker
 * of its own, started and quiet before any fault is armed, and ends long
 * before its first periodic sweep.
 */
const workers = quietWorkerPerTest({ connectionString: url, clock: fixedClock(now), logger, ids: testIds, links: testLinks }, db);

interface Arranged {
  readonly companyId: number;
  readonly campaignId: number;
  readonly snapshotId: number;
}

/** A company seeded with the same debts, a subscribed endpoint and the snapshot stored `pending`, not queued. */
const arrange = async (): Promise<Arranged> => {
  const campaign = await insertCampaign(db);
  const seedId = await insertSnapshot(db, campaign, [seed]);
  const seeded = await applySnapshot({ db, clock: fixedClock(seededAt), ids: testIds, links: testLinks }, snapshotKey(seedId));
  if (seeded.outcome !== "completed") throw new Error(`seed not applied: ${JSON.stringify(seeded)}`);
  await insertEndpoint(db, campaign.companyId, "https://hooks.example.com/faults");
  const snapshotId = await insertSnapshot(db, campaign, [snapshotRows]);
  return { companyId: campaign.companyId, campaignId: campaign.campaignId, snapshotId };
};

const jobKey = (snapshotId: number) => `apply_snapshot:${snapshotId}`;

interface JobState {
  readonly attempts: number;
  readonly max_attempts: number;
  readonly last_error: string | null;
  readonly locked_at: Date | null;
  readonly due_later: boolean;
}

const jobOf = async (snapshotId: number): Promise<JobState | undefined> =>
  (
    await sql<JobState>`
      select attempts, max_attempts, last_error, locked_at, run_at > now() as due_later
      from graphile_worker.jobs where key = ${jobKey(snapshotId)}`.execute(db)
  ).rows[0];

/** Resolves when the worker is done with the job: gone (completed) or unlocked after a failed attempt. */
const attemptEnded = (snapshotId: number, attempts: number) =>
  waitFor(`attempt ${attempts} of the job of snapshot ${snapshotId} to end`, async () => {
    const job = await jobOf(snapshotId);
    if (job === undefined) return { completed: true as const };
    return job.locked_at === null && job.attempts >= attempts ? { completed: false as const, job } : undefined;
  });

/** Runs the job's next attempt now (as its retry delay ending would) and waits for it to end. */
const retryNow = async (snapshotId: number, attempts: number) => {
  await sql`update graphile_worker._private_jobs set run_at = now() where key = ${jobKey(snapshotId)}`.execute(db);
  await sql`select pg_notify('jobs:insert', '{"count":1}')`.execute(db);
  return attemptEnded(snapshotId, attempts);
};

/** Holds a failed job back from any retry but the test's own. */
const holdBack = async (snapshotId: number): Promise<void> => {
  await sql`update graphile_worker._private_jobs set run_at = now() + interval '1 day'
    where key = ${jobKey(snapshotId)}`.execute(db);
};

/**
 * Every row the company holds, exactly, as a digest per table (found in the
 * catalog: every table with a `company_id`), but the snapshot under test,
 * whose row is given in full but for the status and `updated_at` the
 * `processing` mark writes; plus every job queued but the snapshot's own.
 */
const rawState = async ({ companyId, snapshotId }: Arranged): Promise<Record<string, string>> => {
  const snapshot = await sql<{ row: string }>`
    select (to_jsonb(s) - 'status' - 'updated_at')::text as row from snapshots s where id = ${snapshotId}`.execute(db);
  return {
    ...(await companyDigest(db, companyId, { snapshots: sql`r.id = ${snapshotId}` })),
    "snapshot under test": snapshot.rows[0]?.row ?? "-",
    "other jobs": await rowsDigest(
      db,
      sql`graphile_worker._private_jobs as r where r.key is distinct from ${jobKey(snapshotId)}`,
    ),
  };
};

type Row = Record<string, unknown>;

/** Tables an apply writes, compared row by row once normalised. */
const LEDGER_TABLES = [
  "debts",
  "debtors",
  "debt_groups",
  "payment_plans",
  "installments",
  "payments",
  "snapshots",
  "webhook_events",
  "webhook_deliveries",
] as const;

/** The table each id column points to. */
const REFERENCES: Readonly<Record<string, string>> = {
  debt_id: "debts",
  debtor_id: "debtors",
  group_id: "debt_groups",
  payment_plan_id: "payment_plans",
  installment_id: "installments",
  snapshot_id: "snapshots",
  creditor_id: "creditors",
  campaign_id: "campaigns",
  timeline_id: "timelines",
  integration_client_pk: "oauth_clients",
  endpoint_id: "webhook_endpoints",
  event_id: "webhook_events",
};

/** The table of each kind of public id a webhook payload may carry. */
const ID_KINDS = {
  debt: "debts",
  debtor: "debtors",
  installment: "installments",
  payment_plan: "payment_plans",
  snapshot: "snapshots",
  creditor: "creditors",
  campaign: "campaigns",
  timeline: "timelines",
  company: "companies",
  webhook_endpoint: "webhook_endpoints",
} as const;

/**
 * Columns that differ between two identical runs on two companies, or that
 * the fixtures draw at random: generated keys (replaced by labels), the
 * fixture's random snapshot references and digests, the acceptance sequence.
 */
const UNCOMPARED = new Set(["id", "company_id", "public_id", "snapshot_reference", "body_sha256", "accepted_seq"]);

/**
 * A time PostgreSQL's `now()` gave (a column default), not the worker's
 * clock, which is years ahead: it differs from run to run.
 */
const wallClock = (value: unknown): boolean =>
  typeof value === "string" &&
  /^\d{4}-\d\d-\d\dT/.test(value) &&
  Math.abs(Date.parse(value) - Date.now()) < 24 * 3600 * 1000;

/**
 * The company's ledger with every generated id replaced by a label that
 * names what it identifies (a debt by its internal id, a plan by its debt,
 * reference and rank, an installment by its plan and position, any other row
 * by its rank in id order), so two companies' ledgers compare equal exactly
 * when they hold the same amounts, statuses, payments, plans, events and
 * deliveries. Public ids in event payloads are decoded and labelled too;
 * payment ids (random UUIDs) by what the payment is.
 */
const ledger = async (companyId: number) => {
  const rowsOf = async (table: string): Promise<Array<Row>> =>
    (
      await sql<{ r: Row }>`
        select to_jsonb(t) as r from ${sql.table(table)} t where t.company_id = ${companyId} order by t.id`.execute(db)
    ).rows.map(({ r }) => r);
  const tables = Object.fromEntries(
    await Promise.all(
      [...LEDGER_TABLES, "creditors", "campaigns", "timelines", "oauth_clients", "webhook_endpoints"].map(
        async (table) => [table, await rowsOf(table)] as const,
      ),
    ),
  ) as Record<string, Array<Row>>;
  const labels = new Map<string, string>([[`companies:${companyId}`, "the company"]]);
  const label = (table: string, id: unknown): string | null => {
    if (id === null) return null;
    const found = labels.get(`${table}:${String(id)}`);
    if (found === undefined) throw new Error(`${table} ${String(id)} is not the company's`);
    return found;
  };
  for (const [table, rows] of Object.entries(tables)) {
    rows.forEach((r, rank) => labels.set(`${table}:${String(r["id"])}`, `${table}#${rank + 1}`));
  }
  for (const debt of tables["debts"]!) {
    labels.set(`debts:${String(debt["id"])}`, `debt ${String(debt["internal_id"] ?? debt["invoice_reference"])}`);
  }
  const planRanks = new Map<string, number>();
  for (const plan of tables["payment_plans"]!) {
    const owner = `${label("debts", plan["debt_id"])} plan ${String(plan["external_reference"])}`;
    const rank = (planRanks.get(owner) ?? 0) + 1;
    planRanks.set(owner, rank);
    labels.set(`payment_plans:${String(plan["id"])}`, `${owner} #${rank}`);
  }
  for (const item of tables["installments"]!) {
    labels.set(
      `installments:${String(item["id"])}`,
      `${label("payment_plans", item["payment_plan_id"])} installment ${String(item["position"])}`,
    );
  }
  const paymentLabels = new Map<string, string>();
  for (const payment of tables["payments"]!) {
    paymentLabels.set(
      String(payment["id"]),
      `payment ${label("debts", payment["debt_id"])} ${String(payment["kind"])} ${String(payment["amount_minor"])} ${String(payment["external_payment_id"])}`,
    );
  }
  const linkPrefix = `${testLinks.origin}/pay/`;
  const publicId = (value: string): string => {
    const payment = paymentLabels.get(value);
    if (payment !== undefined) return payment;
    if (value.startsWith(linkPrefix)) {
      // A debtor page link names its debt by key, which differs between two runs; checked as at the epoch, so
      // whatever clock signed it, it is read rather than found expired.
      const link = debtorLinks(testLinks.secret).check(value.slice(linkPrefix.length), new Date(0));
      return link.status === "valid" ? `(the link of ${label("debts", link.target.debtId) ?? "?"})` : value;
    }
    if (value.length !== 35) return value;
    for (const [kind, table] of Object.entries(ID_KINDS)) {
      const key = testIds.decode(kind as keyof typeof ID_KINDS, value);
      if (key !== undefined) return label(table, key) ?? value;
    }
    return value;
  };
  // The references the fixtures draw at random, as payloads quote them.
  const references: ReadonlyArray<readonly [string, string]> = [
    ...tables["campaigns"]!.map(
      (campaign) => [String(campaign["api_reference"]), "(the campaign's reference)"] as const,
    ),
    ...tables["snapshots"]!.map(
      (s) => [String(s["snapshot_reference"]), `(${label("snapshots", s["id"])}'s reference)`] as const,
    ),
  ];
  const payload = (value: unknown): unknown => {
    if (wallClock(value)) return "(the database's clock)";
    if (typeof value === "string") {
      return references.reduce((text, [reference, name]) => text.replaceAll(reference, name), publicId(value));
    }
    if (Array.isArray(value)) return value.map(payload);
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, payload(inner)]));
    }
    return value;
  };
  const normalised = (table: string, r: Row): Row => {
    const out: Row = { row: table === "payments" ? paymentLabels.get(String(r["id"])) : label(table, r["id"]) };
    for (const [column, value] of Object.entries(r)) {
      if (UNCOMPARED.has(column)) continue;
      const target = REFERENCES[column];
      out[column] =
        target !== undefined
          ? label(target, value)
          : column === "import_id"
            ? value !== null
            : column === "payload"
              ? payload(JSON.parse(String(value)))
              : wallClock(value)
                ? "(the database's clock)"
                : value;
    }
    return out;
  };
  const sorted = (rows: ReadonlyArray<Row>) =>
    [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  const stats = await sql<Row>`
    select currency, status, sum(debt_count)::int8 as debt_count, sum(amount_minor)::text as amount_minor,
      sum(balance_minor)::text as balance_minor
    from creditor_debt_stats where company_id = ${companyId}
    group by currency, status having sum(debt_count) <> 0 or sum(amount_minor) <> 0 or sum(balance_minor) <> 0
    order by currency, status`.execute(db);
  const jobs = await sql<{ task: string; key: string | null; queued: boolean; payload: Row } & Row>`
    select t.identifier as task, j.key, j.job_queue_id is not null as queued, j.attempts, j.max_attempts, j.priority,
      j.payload
    from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
    where j.payload->>'company_id' = ${String(companyId)}`.execute(db);
  const deliveryJobs = jobs.rows.map(
    ({ key, payload: { company_id: _company, delivery_id: delivery, ...rest }, ...job }) => ({
      ...job,
      key: key?.replace(/\d+$/, (id) => label("webhook_deliveries", id) ?? id),
      payload: { ...rest, delivery: label("webhook_deliveries", delivery) },
    }),
  );
  const ledgerTables = Object.fromEntries(
    LEDGER_TABLES.map((table) => [table, sorted(tables[table]!.map((r) => normalised(table, r)))]),
  ) as Record<(typeof LEDGER_TABLES)[number], Array<Row>>;
  return {
    ...ledgerTables,
    creditor_debt_stats: stats.rows,
    "webhook delivery jobs": sorted(deliveryJobs),
  };
};

const processedLines = (snapshotId: number) =>
  records
    .filter((record) => record["snapshotId"] === snapshotId && String(record["msg"]).startsWith("snapshot "))
    .map((record) => [record["msg"], record["attempt"], record["outcome"] ?? null, record["level"]]);

/** The ledger an untouched run leaves, and how many statements that run issues. */
const reference = await (async () => {
  const referenceWorker = await workers.start();
  const arranged = await arrange();
  armFault(Number.MAX_SAFE_INTEGER, unexpectedError, workerConnections);
  await enqueueApply(db, arranged.snapshotId, arranged.campaignId);
  const ended = await attemptEnded(arranged.snapshotId, 1);
  const outcome = await disarmFault();
  await stopQuietWorker(referenceWorker, db);
  if (!ended.completed) throw new Error("the untouched run did not complete");
  return { arranged, statements: outcome.issued, ledger: await ledger(arranged.companyId) };
})();

/** The statements one sweep made fail, in order: the statements the job runs. */
type Statements = Array<string>;

const processingMark = (statements: Statements): number =>
  statements.findIndex((text) => text.includes("status = 'processing'")) + 1;

/** The documented failure of a snapshot its job's last attempt could not apply (decision 0354). */
const processingError = {
  code: "processing_error",
  message: "The snapshot could not be processed. No debt was changed.",
  errors: [],
  error_count: 0,
  errors_omitted: 0,
};

const omit = (state: Record<string, string>, keys: ReadonlyArray<string>) =>
  Object.fromEntries(Object.entries(state).filter(([key]) => !keys.includes(key)));

const eventTypes = async (companyId: number) =>
  (
    await sql<{ type: string; deliveries: number }>`
      select e.type, (select count(*)::int from webhook_deliveries d where d.event_id = e.id) as deliveries
      from webhook_events e where e.company_id = ${companyId} order by e.id`.execute(db)
  ).rows;

/** Queues the snapshot's job as after 9 failed attempts: the next is its last. */
const enqueueLastAttempt = (arranged: Arranged) =>
  db.transaction().execute(async (trx) => {
    await enqueueApply(trx, arranged.snapshotId, arranged.campaignId);
    await sql`update graphile_worker._private_jobs set attempts = 9 where key = ${jobKey(arranged.snapshotId)}`.execute(
      trx,
    );
  });

/**
 * What a last attempt that could not apply the snapshot must leave: the
 * snapshot `failed` with `processing_error`, its `snapshot.failed` event
 * (with its delivery) and nothing else written, no job left behind.
 */
const expectFailureRecorded = async (arranged: Arranged, before: Record<string, string>, where: string) => {
  expect(await jobOf(arranged.snapshotId), `${where}: the job is left behind`).toBeUndefined();
  expect(await snapshotState(db, arranged.snapshotId), where).toMatchObject({
    status: "failed",
    core_applied: false,
    counts: null,
    failure: processingError,
    completed_at: now,
  });
  const recorded = ["webhook_events", "webhook_deliveries", "other jobs", "snapshot under test"];
  expect(omit(await rawState(arranged), recorded), `${where}: something was written`).toEqual(omit(before, recorded));
  expect(await eventTypes(arranged.companyId), where).toEqual([{ type: "snapshot.failed", deliveries: 1 }]);
  expect(await ledgerViolations(db, arranged.companyId), where).toEqual([]);
};

/**
 * Applies a fresh copy of the snapshot with statement `failAt` made to fail,
 * on the job's first attempt or, with `lastAttempt`, on its last (the job
 * queued as after 9 failed attempts). Checks what decision 0354 promises: a
 * first attempt leaves nothing written and the job awaiting its retry, which
 * then applies the snapshot once; the last attempt marks the snapshot
 * `failed` with `processing_error`, records `snapshot.failed`, changes no
 * debt and completes the job. Returns what the fault saw.
 */
const runWithFault = async (
  failAt: number,
  failure: Failure,
  statements: Statements,
  { lastAttempt = false } = {},
): Promise<FaultOutcome> => {
  const arranged = await arrange();
  const { snapshotId, companyId } = arranged;
  const before = await rawState(arranged);
  const attempt = lastAttempt ? 10 : 1;
  armFault(failAt, failure.error, workerConnections);
  if (lastAttempt) await enqueueLastAttempt(arranged);
  else await enqueueApply(db, snapshotId, arranged.campaignId);
  const first = await attemptEnded(snapshotId, attempt);
  const outcome = await disarmFault();
  const where = `${failure.kind} at statement ${failAt} of attempt ${attempt} (${outcome.failed?.replace(/\s+/g, " ").slice(0, 100)})`;
  if (outcome.failed === undefined) {
    // The job ran fewer statements than the fault waited for: untouched, it completed at once.
    expect(first.completed, where).toBe(true);
    expect(await snapshotState(db, snapshotId), where).toMatchObject({ status: "completed", core_applied: true });
    expect(processedLines(snapshotId), where).toEqual([["snapshot processed", attempt, "completed", 30]]);
    expect(await ledger(companyId), where).toEqual(reference.ledger);
    return outcome;
  }
  statements.push(outcome.failed);

  if (lastAttempt) {
    expect(first.completed, `${where}: the job is left behind`).toBe(true);
    await expectFailureRecorded(arranged, before, where);
    expect(processedLines(snapshotId), where).toEqual([["snapshot processed", 10, "failed", 50]]);
    return outcome;
  }

  // Failed: left for graphile-worker to retry (decision 0354), nothing written.
  expect(first.completed, `${where}: the job completed`).toBe(false);
  const job = first.completed ? undefined : first.job;
  expect(job, where).toMatchObject({ attempts: 1, max_attempts: 10, locked_at: null, due_later: true });
  expect(job?.last_error, where).toContain(failure.message);
  await holdBack(snapshotId);
  const marked = processingMark(statements);
  expect(await snapshotState(db, snapshotId), where).toMatchObject({
    status: marked === 0 || failAt <= marked ? "pending" : "processing",
    core_applied: false,
    counts: null,
    failure: null,
    completed_at: null,
  });
  expect(await rawState(arranged), `${where}: something was written`).toEqual(before);
  expect(processedLines(snapshotId), where).toEqual([["snapshot not applied: will retry", 1, null, 40]]);

  // The retry, untouched, completes the snapshot once, as an untouched first run would have.
  const second = await retryNow(snapshotId, 2);
  expect(second.completed, `${where}: the retry did not complete`).toBe(true);
  expect(await snapshotState(db, snapshotId), where).toMatchObject({ status: "completed", core_applied: true });
  expect(processedLines(snapshotId), where).toEqual([
    ["snapshot not applied: will retry", 1, null, 40],
    ["snapshot processed", 2, "completed", 30],
  ]);
  expect(await ledger(companyId), `${where}: the retried ledger differs`).toEqual(reference.ledger);
  expect(await ledgerViolations(db, companyId), where).toEqual([]);
  return outcome;
};

/** Runs `failAt` = 1, 2, ... until the job runs fewer statements; returns the statements it ran. */
const sweep = async (failure: Failure, options: { lastAttempt?: boolean } = {}): Promise<Statements> => {
  const statements: Statements = [];
  for (let failAt = 1; ; failAt++) {
    expect(failAt, "the job never completed untouched").toBeLessThanOrEqual(MAX_STATEMENTS);
    const outcome = await runWithFault(failAt, failure, statements, options);
    if (outcome.failed === undefined) {
      expect(outcome.issued, "an untouched run issues as many statements as the reference run").toBe(
        reference.statements,
      );
      return statements;
    }
  }
};

describe("the reference run", () => {
  it("writes every kind of ledger row", () => {
    const { ledger: written } = reference;
    const count = (table: string) => (written as Record<string, ReadonlyArray<unknown>>)[table]?.length;
    expect(reference.statements).toBeGreaterThan(10);
    expect(reference.statements).toBeLessThan(MAX_STATEMENTS);
    expect(written.snapshots.find((s) => s["row"] === "snapshots#2")).toMatchObject({
      status: "completed",
      counts: { created: 2, settled: 2, payments: 7 },
    });
    const kinds = new Set(written.payments.map((payment) => `${String(payment["kind"])}:${String(payment["status"])}`));
    expect(kinds.size).toBeGreaterThanOrEqual(2);
    expect(count("installments")).toBeGreaterThan(0);
    expect(new Set(written.webhook_events.map((event) => event["type"]))).toEqual(
      new Set([
        "debt.created",
        "debt.updated",
        "debt.settled",
        "payment.recorded",
        "payment_plan.replaced",
        "snapshot.completed",
      ]),
    );
    expect(count("webhook_deliveries")).toBe(count("webhook_events"));
  });
});

describe("apply_snapshot with one statement failing", () => {
  it(
    `${unexpected.kind}: retried, nothing written, then applied once as untouched, at every statement`,
    { timeout: 240_000 },
    async () => {
      const statements = await sweep(unexpected);
      expect(statements).toHaveLength(reference.statements);
      // The sweep reached both ends of the transaction and every write.
      for (const pattern of [
        /^begin$/,
        /^update snapshots set status = 'processing'/,
        /^insert into debts/,
        /^update debts/,
        /^with plans as \( insert into payment_plans/,
        /^with inst as \( insert into payments/,
        /^update snapshots set status = 'completed'/,
        /insert into webhook_events/,
        /^commit$/,
      ]) {
        expect(
          statements.some((text) => pattern.test(text.trim().replace(/\s+/g, " "))),
          String(pattern),
        ).toBe(true);
      }
    },
  );

  it(`${unavailable.kind}: the same, at every statement`, { timeout: 240_000 }, async () => {
    expect(await sweep(unavailable)).toHaveLength(reference.statements);
  });

  it(
    `${unexpected.kind} on the job's last attempt: failed with processing_error, no debt changed, at every statement`,
    { timeout: 240_000 },
    async () => {
      expect(await sweep(unexpected, { lastAttempt: true })).toHaveLength(reference.statements);
    },
  );
});

describe("a last attempt whose failure cannot be recorded", () => {
  it(
    "leaves the job spent and nothing written, and the worker's next sweep records the failure once, at every statement",
    { timeout: 240_000 },
    async () => {
      // The apply fails by itself when it records payments, so each last attempt
      // goes on to record the failure, whose statements the fault reaches too.
      await sql`create function fail_payments() returns trigger language plpgsql as $$
        begin raise exception 'payments are unavailable'; end $$`.execute(db);
      await sql`create trigger fail_payments before insert on payments for each row execute function fail_payments()`.execute(
        db,
      );
      try {
        const statements: Statements = [];
        const leftSpent: Array<number> = [];
        for (let failAt = 1; ; failAt++) {
          expect(failAt, "the job never ran untouched").toBeLessThanOrEqual(MAX_STATEMENTS);
          const arranged = await arrange();
          const { snapshotId } = arranged;
          const before = await rawState(arranged);
          armFault(failAt, unexpectedError, workerConnections);
          await enqueueLastAttempt(arranged);
          const ended = await attemptEnded(snapshotId, 10);
          const outcome = await disarmFault();
          const where = `statement ${failAt} (${outcome.failed?.replace(/\s+/g, " ").slice(0, 100)})`;
          if (outcome.failed !== undefined) statements.push(outcome.failed);
          if (!ended.completed) {
            // Recording the failure failed: the job is spent, the snapshot open, nothing written.
            leftSpent.push(failAt);
            expect(ended.job, where).toMatchObject({ attempts: 10, max_attempts: 10, locked_at: null });
            expect(await snapshotState(db, snapshotId), where).toMatchObject({ status: "processing", failure: null });
            expect(await rawState(arranged), `${where}: something was written`).toEqual(before);
          }
          // A new worker: its start-up sweep records what the attempt could not. (It also
          // drops the connection a failed ROLLBACK leaves inside its transaction: the
          // injector never sends the statement, where a real failure would end the connection.)
          await workers.restart();
          await expectFailureRecorded(arranged, before, where);
          if (!ended.completed) {
            expect(
              records.some(
                (record) =>
                  record["snapshotId"] === snapshotId &&
                  record["msg"] === "snapshot failure not recorded: left to the spent-job sweep",
              ),
              where,
            ).toBe(true);
            const swept = records.filter(
              (record) => record["msg"] === "snapshots failed: their jobs were spent without recording it",
            );
            expect(swept.at(-1)?.["snapshotIds"], where).toEqual([snapshotId]);
          }
          if (outcome.failed === undefined) break;
        }
        // The attempt recorded the failure itself up to its rollback; each statement of the record failing left it to the sweep.
        const rollback = statements.findIndex((text) => text.trim() === "rollback") + 1;
        expect(rollback, "the apply never failed by itself").toBeGreaterThan(0);
        expect(statements.length).toBeGreaterThan(rollback);
        expect(leftSpent.filter((failAt) => failAt !== rollback)).toEqual(
          Array.from({ length: statements.length - rollback }, (_, i) => rollback + 1 + i),
        );
      } finally {
        await sql`drop trigger fail_payments on payments`.execute(db);
        await sql`drop function fail_payments()`.execute(db);
      }
    },
  );
});
