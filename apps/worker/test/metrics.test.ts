/**
 * The worker's metrics through the real worker: how snapshot applications
 * end and how long they take, what the hourly purge removed, graphile-worker
 * job outcomes, and the job queue depth read at scrape time (and no longer
 * once the worker stopped).
 */
import { useTestDatabase } from "@dc/testing";
import { snapshotQueueName } from "@dc/db";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { createWorkerMetrics } from "../src/observability/metrics.ts";
import { type RunningWorker, startWorker } from "../src/worker.ts";
import { captureLogger } from "./log-capture.ts";
import { sample } from "./metrics-text.ts";
import { hoursFrom, insertCounter } from "./oauth-fixtures.ts";
import { accountRow as row, insertCampaign, insertSnapshot, snapshotState, testIds, testLinks } from "./snapshot-fixtures.ts";
import { waitFor } from "./wait-for.ts";

const { db, url } = await useTestDatabase();
const now = new Date("2030-06-15T12:00:00.000Z");
const { logger } = captureLogger();
const metrics = createWorkerMetrics(logger);
const text = (): Promise<string> => metrics.registry.metrics();

const jobGone = async (key: string): Promise<true | undefined> => {
  const { rows } = await sql`select 1 from graphile_worker.jobs where key = ${key}`.execute(db);
  return rows.length === 0 ? true : undefined;
};
const waitUntilApplied = (snapshotId: number): Promise<true> =>
  waitFor(`the job of snapshot ${snapshotId} to complete`, () => jobGone(`apply_snapshot:${snapshotId}`), {
    timeoutMs: 25_000,
  });
/** Resolves with the metrics text once `series` has `value`. */
const waitForSample = (series: string, value: number): Promise<string> =>
  waitFor(`${series} to be ${value}`, async () => {
    const current = await text();
    return sample(current, series) === value ? current : undefined;
  });

describe("worker metrics", () => {
  let worker: RunningWorker;

  beforeAll(async () => {
    worker = await startWorker({
      connectionString: url,
      concurrency: 2,
      clock: fixedClock(now),
      logger,
      ids: testIds, links: testLinks,
      metrics,
    });
  });
  afterAll(async () => {
    await worker.stop();
  });

  it("counts an applied snapshot as completed, with its duration and rows", async () => {
    const campaign = await insertCampaign(db);
    const id = await insertSnapshot(db, campaign, [[row("a", 10), row("b", 20)]], { enqueue: true });
    await waitUntilApplied(id);
    const current = await text();
    expect(sample(current, 'snapshot_apply_total{outcome="completed"}')).toBe(1);
    expect(sample(current, 'snapshot_apply_duration_seconds_count{outcome="completed"}')).toBe(1);
    expect(sample(current, 'snapshot_apply_duration_seconds_bucket{le="+Inf",outcome="completed"}')).toBe(1);
    expect(sample(current, 'snapshot_apply_duration_seconds_sum{outcome="completed"}')).toBeGreaterThan(0);
    expect(sample(current, "snapshot_rows_applied_total")).toBe(2);
    expect(sample(current, 'snapshot_apply_total{outcome="failed"}')).toBeUndefined();
    expect(sample(current, 'worker_jobs_total{task="apply_snapshot",outcome="success"}')).toBe(1);
  });

  it("counts an invalid snapshot as failed with invalid_snapshot_row; its job still succeeds", async () => {
    const campaign = await insertCampaign(db);
    const id = await insertSnapshot(db, campaign, [[row("a", 10), row("a", 20)]], { enqueue: true });
    await waitUntilApplied(id);
    expect(await snapshotState(db, id)).toMatchObject({ status: "failed", failure: { code: "invalid_snapshot_row" } });
    const current = await text();
    expect(sample(current, 'snapshot_apply_total{outcome="failed"}')).toBe(1);
    expect(sample(current, 'snapshot_apply_duration_seconds_count{outcome="failed"}')).toBe(1);
    expect(sample(current, 'snapshot_apply_failures_total{code="invalid_snapshot_row"}')).toBe(1);
    expect(sample(current, 'snapshot_apply_total{outcome="completed"}')).toBe(1);
    expect(sample(current, "snapshot_rows_applied_total")).toBe(2);
    expect(sample(current, 'worker_jobs_total{task="apply_snapshot",outcome="success"}')).toBe(2);
  });

  it("counts a snapshot that must wait for an earlier one as a retry, and its job as retried", async () => {
    const campaign = await insertCampaign(db);
    const early = await insertSnapshot(db, campaign, [[row("a", 100)]]);
    await sql`select graphile_worker.add_job('apply_snapshot',
      json_build_object('snapshot_id', ${early}::bigint, 'company_id', ${campaign.companyId}::bigint),
      queue_name := ${snapshotQueueName(campaign.campaignId)}, job_key := ${`apply_snapshot:${early}`},
      run_at := now() + interval '1 hour')`.execute(db);
    const late = await insertSnapshot(db, campaign, [[row("a", 40)]], { enqueue: true });
    try {
      const current = await waitForSample('worker_jobs_total{task="apply_snapshot",outcome="retry"}', 1);
      expect(sample(current, 'snapshot_apply_total{outcome="retry"}')).toBe(1);
      expect(sample(current, 'snapshot_apply_duration_seconds_count{outcome="retry"}')).toBe(1);
      expect(sample(current, 'worker_jobs_total{task="apply_snapshot",outcome="failed"}')).toBeUndefined();
    } finally {
      for (const id of [early, late])
        await sql`select graphile_worker.remove_job(${`apply_snapshot:${id}`})`.execute(db);
    }
  });

  it("counts a job that throws on its last attempt as failed", async () => {
    await insertCounter(db, "metrics-expired", hoursFrom(now, -1));
    await sql`create function fail_counter_deletes() returns trigger language plpgsql as $$
      begin raise exception 'counters are unavailable'; end $$`.execute(db);
    await sql`create trigger fail_counter_deletes before delete on rate_limit_counters
      for each row execute function fail_counter_deletes()`.execute(db);
    try {
      await sql`select graphile_worker.add_job('purge_expired', '{}'::json, job_key := 'metrics-purge', max_attempts := 1)`.execute(
        db,
      );
      await waitForSample('worker_jobs_total{task="purge_expired",outcome="failed"}', 1);
    } finally {
      await sql`drop trigger fail_counter_deletes on rate_limit_counters`.execute(db);
      await sql`drop function fail_counter_deletes()`.execute(db);
      await sql`delete from graphile_worker._private_jobs where key = 'metrics-purge'`.execute(db);
    }
  });

  it("counts what the hourly purge removed, by kind", async () => {
    const before = await text();
    const count = (current: string, series: string) => sample(current, series) ?? 0;
    await insertCounter(db, "metrics-purged", hoursFrom(now, -1));
    const campaign = await insertCampaign(db);
    const upload = await insertSnapshot(db, campaign, [[row("u", 1)], [row("v", 2)]]);
    await sql`update snapshots set status = 'uploading', finalized_at = null,
        updated_at = ${hoursFrom(now, -8 * 24).toISOString()}::timestamptz
      where id = ${upload}`.execute(db);
    await sql`select graphile_worker.add_job('purge_expired', '{}'::json, job_key := 'metrics-purged')`.execute(db);
    await waitFor("the purge to run", () => jobGone("metrics-purged"));
    const after = await text();
    for (const kind of ["rate_limit_counters", "staged_snapshots_expired"]) {
      const series = `purge_removed_total{kind="${kind}"}`;
      expect(count(after, series) - count(before, series)).toBeGreaterThanOrEqual(1);
    }
    // Every kind has its series from the first run, zero included.
    for (const kind of ["oauth_access_tokens", "webhook_events", "webhook_delivery_attempts", "snapshot_chunk_bodies"]) {
      expect(sample(after, `purge_removed_total{kind="${kind}"}`)).toBeDefined();
    }
    expect(sample(after, 'purge_removed_total{kind="staged_snapshot_events"}')).toBeUndefined();
    expect(sample(after, "purge_snapshot_body_bytes_total")).toBeDefined();
    expect(sample(after, "purge_unfinished_total")).toBe(0);
    expect((await snapshotState(db, upload)).status).toBe("failed");
  });

  it("reads the job queue depth by task at scrape time", async () => {
    // No worker runs this task: its jobs wait for ever.
    for (let n = 0; n < 2; n++) await sql`select graphile_worker.add_job('metrics_probe', '{}'::json)`.execute(db);
    expect(sample(await text(), 'job_queue_depth{task="metrics_probe"}')).toBe(2);
    await sql`delete from graphile_worker._private_jobs
      where task_id = (select id from graphile_worker._private_tasks where identifier = 'metrics_probe')`.execute(db);
    expect(sample(await text(), 'job_queue_depth{task="metrics_probe"}')).toBeUndefined();
  });

  it("still answers a scrape after the worker stopped, without the queue depth it can no longer read", async () => {
    await sql`select graphile_worker.add_job('metrics_probe', '{}'::json)`.execute(db);
    await worker.stop();
    const current = await text();
    expect(current).not.toContain("job_queue_depth{");
    expect(sample(current, 'snapshot_apply_total{outcome="completed"}')).toBe(1);
    expect(current).toContain("process_cpu_user_seconds_total");
  });
});
