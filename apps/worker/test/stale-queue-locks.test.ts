/**
 * A job run twice after its lock was released from a pool taken for dead
 * (docs/decisions/0357) must not leave its campaign's queue locked. When the
 * first runner completes the job first, graphile-worker's completion of the
 * second runner finds the job already deleted and leaves the queue locked by
 * the second, live, pool: graphile-worker's own reset frees it after 4
 * hours, and the stale-lock sweep, which only looked at jobs, never did.
 */
import { useTestDatabase } from "@dc/testing";
import { snapshotQueueName } from "@dc/db";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { releaseOrphanedQueueLocks } from "@dc/db";
import { type RunningWorker, startWorker } from "../src/worker.ts";
import { captureLogger } from "./log-capture.ts";
import { accountRow, insertCampaign, insertSnapshot, snapshotState, testIds } from "./snapshot-fixtures.ts";
import { waitFor } from "./wait-for.ts";

const { db, url } = await useTestDatabase();
const { logger, records } = captureLogger();
const workers: Array<RunningWorker> = [];

afterAll(async () => {
  for (const worker of workers) await worker.stop();
});

const GHOST = "pool-taken-for-dead";

/** Runs `work` in a transaction held open until `commit` is called. */
const holdTransaction = async (work: (trx: typeof db) => Promise<void>) => {
  let commit = (): void => {};
  const committed = new Promise<void>((resolve) => (commit = resolve));
  let ready = (): void => {};
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  let then = async (_trx: typeof db): Promise<void> => {};
  const done = db.transaction().execute(async (trx) => {
    await work(trx);
    ready();
    await committed;
    await then(trx);
  });
  await isReady;
  return {
    commitAfter: async (last: (trx: typeof db) => Promise<void>) => {
      then = last;
      commit();
      await done;
    },
  };
};

const queueLock = async (campaignId: number): Promise<string | null | undefined> => {
  const { rows } = await sql<{ locked_by: string | null }>`
    select locked_by from graphile_worker._private_job_queues
    where queue_name = ${snapshotQueueName(campaignId)}`.execute(db);
  return rows[0]?.locked_by;
};

describe("a job run a second time after its lock was released", () => {
  it("leaves its campaign's queue free for the next snapshot when the first runner completed the job first", async () => {
    const campaign = await insertCampaign(db);
    const first = await insertSnapshot(db, campaign, [[accountRow("a", 10)]], { enqueue: true });
    const key = `apply_snapshot:${first}`;
    // The job as a pool with no presence connection took it (an older version in a rolling deploy).
    await sql`
      with j as (
        update graphile_worker._private_jobs set locked_by = ${GHOST}, locked_at = now(), attempts = attempts + 1
        where key = ${key} returning job_queue_id
      )
      update graphile_worker._private_job_queues q set locked_by = ${GHOST}, locked_at = now()
      from j where q.id = j.job_queue_id`.execute(db);
    // That pool's apply, in progress: it holds the snapshot's row.
    const ghostApply = await holdTransaction(async (trx) => {
      await sql`select 1 from snapshots where id = ${first} for update`.execute(trx);
    });

    const worker = await startWorker({
      connectionString: url,
      concurrency: 1,
      clock: fixedClock(new Date()),
      logger,
      ids: testIds,
      staleLockSeconds: 0,
    });
    workers.push(worker);
    await waitFor("the worker to run the released job and wait for the snapshot's row", async () => {
      const { rows } = await sql`
        select 1 from pg_stat_activity
        where datname = current_database() and application_name = 'dc-worker' and wait_event_type = 'Lock'`.execute(db);
      return rows.length > 0 ? true : undefined;
    });
    const runner = await queueLock(campaign.campaignId);
    expect(runner).not.toBe(GHOST);
    expect(runner).not.toBeNull();

    // The first runner applies the snapshot and completes its job (graphile-worker's completion, as that pool).
    await ghostApply.commitAfter(async (trx) => {
      await sql`update snapshots set status = 'completed', core_applied = true where id = ${first}`.execute(trx);
      await sql`
        with j as (delete from graphile_worker._private_jobs where key = ${key} returning *)
        update graphile_worker._private_job_queues q set locked_by = null, locked_at = null
        from j where q.id = j.job_queue_id and q.locked_by = ${GHOST}`.execute(trx);
    });
    await waitFor("the second run to end", () =>
      records.some((record) => record["msg"] === "snapshot processed" && record["snapshotId"] === first)
        ? true
        : undefined,
    );
    expect(
      records.filter((record) => record["msg"] === "snapshot processed" && record["snapshotId"] === first),
    ).toMatchObject([{ outcome: "skipped", status: "completed" }]);
    const second = await insertSnapshot(db, campaign, [[accountRow("a", 7)]], { enqueue: true });
    await waitFor("the next snapshot of the campaign to be applied", async () =>
      (await snapshotState(db, second)).status === "completed" ? true : undefined,
    );
    // The snapshot's commit comes before graphile-worker completes its job and unlocks the queue: wait for
    // that unlock (a queue left locked, the defect this guards against, stays locked for hours).
    await waitFor("the campaign's queue to be unlocked", async () =>
      (await queueLock(campaign.campaignId)) === null ? true : undefined,
    );
    await worker.stop();
  });

  it("never frees a queue whose job its pool is running", async () => {
    const campaign = await insertCampaign(db);
    const id = await insertSnapshot(db, campaign, [[accountRow("b", 10)]], { enqueue: true });
    await sql`
      with j as (
        update graphile_worker._private_jobs set locked_by = 'pool-running', locked_at = now() - interval '1 hour'
        where key = ${`apply_snapshot:${id}`} returning job_queue_id
      )
      update graphile_worker._private_job_queues q set locked_by = 'pool-running', locked_at = now() - interval '1 hour'
      from j where q.id = j.job_queue_id`.execute(db);
    expect(await releaseOrphanedQueueLocks(db, 0)).toEqual([]);
    expect(await queueLock(campaign.campaignId)).toBe("pool-running");
    await sql`delete from graphile_worker._private_jobs where key = ${`apply_snapshot:${id}`}`.execute(db);
    await sql`update graphile_worker._private_job_queues set locked_by = null, locked_at = null
      where queue_name = ${snapshotQueueName(campaign.campaignId)}`.execute(db);
  });
});
