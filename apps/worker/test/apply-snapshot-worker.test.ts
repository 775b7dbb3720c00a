import { snapshotQueueName } from "@dc/db";
import { holdTransaction, useTestDatabase } from "@dc/testing";
import type { JobHelpers } from "graphile-worker";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { createWorkerMetrics } from "../src/observability/metrics.ts";
import { unlockDeadWorkers } from "../src/stale-locks.ts";
import { applySnapshotTask } from "../src/tasks/apply-snapshot.ts";
import { type RunningWorker, startWorker } from "../src/worker.ts";
import { captureLogger } from "./log-capture.ts";
import { sample } from "./metrics-text.ts";
import {
  accountRow as row,
  debtBy,
  debtsOf,
  enqueueApply,
  fingerprint,
  insertCampaign,
  insertSnapshot,
  ledgerViolations,
  paymentsOf,
  snapshotState,
  testIds, testLinks,
} from "./snapshot-fixtures.ts";
import { waitFor } from "./wait-for.ts";

const { db, url } = await useTestDatabase();
const now = new Date("2030-06-15T12:00:00.000Z");
const { logger, records } = captureLogger();


const jobGone = async (snapshotId: number): Promise<true | undefined> => {
  const { rows } = await sql`select 1 from graphile_worker.jobs where key = ${`apply_snapshot:${snapshotId}`}`.execute(
    db,
  );
  return rows.length === 0 ? true : undefined;
};
const waitUntilApplied = (snapshotId: number): Promise<true> =>
  waitFor(`the job of snapshot ${snapshotId} to complete`, () => jobGone(snapshotId), { timeoutMs: 25_000 });
const processed = (snapshotId: number) =>
  records.filter((record) => record["msg"] === "snapshot processed" && record["snapshotId"] === snapshotId);

describe("apply_snapshot through the real worker", () => {
  let worker: RunningWorker;

  beforeAll(async () => {
    worker = await startWorker({
      connectionString: url,
      concurrency: 2,
      clock: fixedClock(now),
      logger,
      ids: testIds, links: testLinks,
      staleLockSeconds: 60,
    });
  });
  afterAll(async () => {
    await worker.stop();
  });

  it("applies a queued snapshot and logs one line with its outcome, duration and counts", async () => {
    const campaign = await insertCampaign(db);
    const id = await insertSnapshot(db, campaign, [[row("a", 10), row("b", 20)]], { enqueue: true });
    await waitUntilApplied(id);
    expect(await snapshotState(db, id)).toMatchObject({
      status: "completed",
      core_applied: true,
      counts: { rows: 2, created: 2 },
    });
    expect(processed(id)).toHaveLength(1);
    expect(processed(id)[0]).toMatchObject({
      level: 30,
      task: "apply_snapshot",
      outcome: "completed",
      companyId: campaign.companyId,
      campaignId: campaign.campaignId,
      counts: { rows: 2, created: 2 },
      attempt: 1,
    });
    expect(typeof processed(id)[0]?.["durationMs"]).toBe("number");
  });

  it("applies two snapshots of one campaign in acceptance order: the later balances win", async () => {
    const campaign = await insertCampaign(db);
    const first = await insertSnapshot(db, campaign, [[row("a", 100), row("b", 50)]], { enqueue: true });
    const second = await insertSnapshot(db, campaign, [[row("a", 70), row("c", 10)]], { enqueue: true });
    await waitUntilApplied(first);
    await waitUntilApplied(second);
    const debts = await debtsOf(db, campaign.campaignId);
    expect(debts.map((debt) => [debt.internal_id, debt.amount_minor, debt.balance_minor, debt.status])).toEqual([
      ["a", 10000, 7000, "status.default.pending"],
      ["b", 5000, 0, "status.default.paid"],
      ["c", 1000, 1000, "status.default.pending"],
    ]);
    expect((await paymentsOf(db, debtBy(debts, "a").id)).map((p) => [p.snapshot_id, p.amount_minor])).toEqual([
      [second, 3000],
    ]);
    expect(await ledgerViolations(db, campaign.companyId)).toEqual([]);
  });

  it("applies nothing for a job that names another company than its snapshot's (DESIGN 6)", async () => {
    const campaign = await insertCampaign(db);
    const other = await insertCampaign(db);
    const id = await insertSnapshot(db, campaign, [[row("a", 10)]]);
    await sql`select graphile_worker.add_job('apply_snapshot',
      json_build_object('snapshot_id', ${id}::bigint, 'company_id', ${other.companyId}::bigint),
      queue_name := ${snapshotQueueName(campaign.campaignId)}, job_key := ${`apply_snapshot:${id}`},
      max_attempts := 10)`.execute(db);
    await waitUntilApplied(id);
    expect(processed(id)).toMatchObject([{ outcome: "not_found" }]);
    expect(await snapshotState(db, id)).toMatchObject({ status: "pending", core_applied: false });
    expect(await debtsOf(db, campaign.campaignId)).toEqual([]);
  });

  it("makes a later snapshot wait while an earlier one of its campaign awaits a retry", async () => {
    const campaign = await insertCampaign(db);
    const early = await insertSnapshot(db, campaign, [[row("a", 100)]]);
    // The earlier snapshot's job as after a failed attempt: due later, queue free.
    await sql`select graphile_worker.add_job('apply_snapshot',
      json_build_object('snapshot_id', ${early}::bigint, 'company_id', ${campaign.companyId}::bigint),
      queue_name := ${snapshotQueueName(campaign.campaignId)}, job_key := ${`apply_snapshot:${early}`},
      max_attempts := 10, run_at := now() + interval '1 hour')`.execute(db);
    const late = await insertSnapshot(db, campaign, [[row("a", 40)]], { enqueue: true });
    await waitFor("the later job to be turned back", async () => {
      const { rows } = await sql<{ attempts: number; last_error: string | null }>`
        select attempts, last_error from graphile_worker.jobs where key = ${`apply_snapshot:${late}`}`.execute(db);
      return rows[0]?.attempts === 1 && rows[0].last_error !== null ? rows[0].last_error : undefined;
    });
    expect(await snapshotState(db, late)).toMatchObject({ status: "pending", core_applied: false });
    expect(await debtsOf(db, campaign.campaignId)).toEqual([]);

    await sql`update graphile_worker._private_jobs set run_at = now() where key = ${`apply_snapshot:${early}`}`.execute(
      db,
    );
    await waitUntilApplied(early);
    await waitUntilApplied(late);
    expect((await debtsOf(db, campaign.campaignId)).map((debt) => [debt.amount_minor, debt.balance_minor])).toEqual([
      [10000, 4000],
    ]);
  });

  it("changes nothing when the job of an applied snapshot runs again", async () => {
    const campaign = await insertCampaign(db);
    const id = await insertSnapshot(db, campaign, [[row("a", 10)]], { enqueue: true });
    await waitUntilApplied(id);
    const before = await fingerprint(db, campaign.companyId);
    const state = await snapshotState(db, id);
    await enqueueApply(db, id, campaign.campaignId);
    await waitUntilApplied(id);
    expect(await fingerprint(db, campaign.companyId)).toBe(before);
    expect(await snapshotState(db, id)).toEqual(state);
    expect(processed(id).map((record) => [record["outcome"], record["status"]])).toEqual([
      ["completed", undefined],
      ["skipped", "completed"],
    ]);
  });

  it("fails a snapshot that cannot be applied with processing_error at once, without retrying", async () => {
    const campaign = await insertCampaign(db);
    const id = await insertSnapshot(db, campaign, [[row("a", 10)]]);
    await sql`update snapshot_chunks set body = '{"rows": {"not": "an array"}}' where snapshot_id = ${id}`.execute(db);
    await enqueueApply(db, id, campaign.campaignId);
    await waitUntilApplied(id);
    expect(await snapshotState(db, id)).toMatchObject({
      status: "failed",
      core_applied: false,
      failure: {
        code: "processing_error",
        message: "The snapshot could not be processed. No debt was changed.",
        errors: [],
        error_count: 0,
        errors_omitted: 0,
      },
    });
    expect(processed(id)).toMatchObject([{ level: 50, outcome: "failed", code: "processing_error", marked: true }]);
    expect(await debtsOf(db, campaign.campaignId)).toEqual([]);
  });
});

describe("apply_snapshot on database errors", () => {
  const metrics = createWorkerMetrics(logger);
  const task = applySnapshotTask({ db, clock: fixedClock(now), logger, metrics, ids: testIds, links: testLinks });
  const helpers = (attempts: number): JobHelpers =>
    ({ job: { id: "42", task_identifier: "apply_snapshot", attempts, max_attempts: 10 } }) as unknown as JobHelpers;

  it("throws for a retry and changes nothing, then marks processing_error on the last attempt", async () => {
    const campaign = await insertCampaign(db);
    const setup = await insertSnapshot(db, campaign, [[row("a", 10)]]);
    await task({ snapshot_id: setup, company_id: campaign.companyId }, helpers(1));
    const before = await fingerprint(db, campaign.companyId);
    await sql`create function fail_payments() returns trigger language plpgsql as $$
      begin raise exception 'payments are unavailable'; end $$`.execute(db);
    await sql`create trigger fail_payments before insert on payments execute function fail_payments()`.execute(db);
    try {
      const id = await insertSnapshot(db, campaign, [[row("a", 4)]]);
      await expect(task({ snapshot_id: id, company_id: campaign.companyId }, helpers(1))).rejects.toThrow("payments are unavailable");
      expect(await snapshotState(db, id)).toMatchObject({ status: "processing", core_applied: false, failure: null });
      await expect(task({ snapshot_id: id, company_id: campaign.companyId }, helpers(9))).rejects.toThrow("payments are unavailable");
      await expect(task({ snapshot_id: id, company_id: campaign.companyId }, helpers(10))).resolves.toBeUndefined();
      expect(await snapshotState(db, id)).toMatchObject({
        status: "failed",
        core_applied: false,
        failure: { code: "processing_error", error_count: 0 },
      });
      expect(await fingerprint(db, campaign.companyId)).toBe(before);
      const text = await metrics.registry.metrics();
      expect(sample(text, 'snapshot_apply_total{outcome="completed"}')).toBe(1);
      expect(sample(text, 'snapshot_apply_total{outcome="retry"}')).toBe(2);
      expect(sample(text, 'snapshot_apply_total{outcome="failed"}')).toBe(1);
      expect(sample(text, 'snapshot_apply_failures_total{code="processing_error"}')).toBe(1);
      expect(sample(text, 'snapshot_apply_duration_seconds_count{outcome="retry"}')).toBe(2);
    } finally {
      await sql`drop trigger fail_payments on payments`.execute(db);
      await sql`drop function fail_payments()`.execute(db);
    }
  });
});

describe("apply_snapshot payloads", () => {
  it("drops a job whose payload does not name the company, logging it and changing nothing", async () => {
    const task = applySnapshotTask({
      db,
      clock: fixedClock(now),
      logger,
      metrics: createWorkerMetrics(logger),
      ids: testIds, links: testLinks,
    });
    const campaign = await insertCampaign(db);
    const id = await insertSnapshot(db, campaign, [[row("a", 10)]]);
    const helpers = { job: { id: "payload-without-company", task_identifier: "apply_snapshot", attempts: 1, max_attempts: 10 } };
    await task({ snapshot_id: id }, helpers as unknown as JobHelpers);
    expect(records.filter((record) => record["jobId"] === "payload-without-company").map((record) => record["msg"])).toEqual([
      "invalid job payload: job dropped without retry",
    ]);
    expect(await snapshotState(db, id)).toMatchObject({ status: "pending", core_applied: false });
    expect(await debtsOf(db, campaign.campaignId)).toEqual([]);
  });
});

describe("stale job locks", () => {
  it("unlocks the pools whose lease expired by their own grace, and pools without a lease by the sweeper's", async () => {
    const lock = async (key: string, pool: string, lockedSecondsAgo: number): Promise<void> => {
      await sql`select graphile_worker.add_job('purge_expired', '{}'::json, job_key := ${key}, run_at := now() + interval '1 day')`.execute(
        db,
      );
      await sql`update graphile_worker._private_jobs
        set locked_by = ${pool}, locked_at = now() - make_interval(secs => ${lockedSecondsAgo}) where key = ${key}`.execute(db);
    };
    const lease = async (pool: string, renewedSecondsAgo: number, graceSeconds: number): Promise<void> => {
      await sql`insert into worker_leases (pool_id, renewed_at, grace_seconds)
        values (${pool}, now() - make_interval(secs => ${renewedSecondsAgo}), ${graceSeconds})`.execute(db);
    };
    const locks = async () => {
      const { rows } = await sql<{ key: string; locked_by: string | null }>`
        select key, locked_by from graphile_worker.jobs where key like 'stale-%' order by key`.execute(db);
      return rows;
    };
    const leases = async () => {
      const { rows } = await sql<{ pool_id: string }>`select pool_id from worker_leases order by pool_id`.execute(db);
      return rows.map((row) => row.pool_id);
    };
    await lock("stale-dead", "pool-dead", 60);
    await lease("pool-dead", 11, 10);
    await lock("stale-alive", "pool-alive", 60);
    await lease("pool-alive", 1, 10);
    // Its own grace is longer than the sweeper's: not expired yet.
    await lock("stale-patient", "pool-patient", 60);
    await lease("pool-patient", 30, 60);
    // No lease yet: counted from its job lock, with the sweeper's grace.
    await lock("stale-new", "pool-new", 1);
    await lock("stale-ghost", "pool-ghost", 11);
    await lock("stale-own", "pool-own", 60);
    // Expired, locking nothing: deleted.
    await lease("pool-gone", 3_600, 10);
    const own = new Set(["pool-own"]);
    try {
      expect(await unlockDeadWorkers(db, { graceSeconds: 10, own })).toEqual([
        "pool-dead",
        "pool-ghost",
      ]);
      expect(await locks()).toEqual([
        { key: "stale-alive", locked_by: "pool-alive" },
        { key: "stale-dead", locked_by: null },
        { key: "stale-ghost", locked_by: null },
        { key: "stale-new", locked_by: "pool-new" },
        { key: "stale-own", locked_by: "pool-own" },
        { key: "stale-patient", locked_by: "pool-patient" },
      ]);
      expect(await leases()).toEqual(["pool-alive", "pool-patient"]);
      // A lease held by another session (a renewal under way) is left for a later sweep.
      await sql`update worker_leases set renewed_at = now() - interval '1 hour' where pool_id = 'pool-alive'`.execute(db);
      await sql`delete from graphile_worker._private_jobs where key = 'stale-alive'`.execute(db);
      const held = await holdTransaction(db, (trx) =>
        sql`select 1 from worker_leases where pool_id = 'pool-alive' for update`.execute(trx),
      );
      try {
        expect(await unlockDeadWorkers(db, { graceSeconds: 10, own })).toEqual([]);
        expect(await leases()).toEqual(["pool-alive", "pool-patient"]);
      } finally {
        await held.release();
      }
      expect(await unlockDeadWorkers(db, { graceSeconds: 10, own })).toEqual([]);
      expect(await leases()).toEqual(["pool-patient"]);
    } finally {
      await sql`delete from graphile_worker._private_jobs where key like 'stale-%'`.execute(db);
      await sql`delete from worker_leases`.execute(db);
    }
  });
});
