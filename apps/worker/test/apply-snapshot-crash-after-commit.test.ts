/**
 * A worker killed (SIGKILL) after its apply transaction committed but before
 * graphile-worker recorded the job's completion: a restarted worker runs the
 * job again, and the run changes nothing (DESIGN 5.3, docs/decisions/0357).
 */
import { applySnapshot } from "../src/snapshots/apply-snapshot.ts";
import { holdTransaction, useTestDatabase } from "@dc/testing";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import {
  fingerprint,
  insertCampaign,
  insertSnapshot,
  ledgerViolations,
  snapshotState,
  testIds, testLinks,
  snapshotKey,
} from "./snapshot-fixtures.ts";
import { spawnWorker, stopWorkers, type WorkerProcess } from "./worker-process.ts";
import { waitFor } from "./wait-for.ts";

const { db, url } = await useTestDatabase();
const running: Array<WorkerProcess> = [];

afterEach(() => stopWorkers(running));

const workerBackendsWaitingOnLock = async (): Promise<Array<number>> => {
  const { rows } = await sql<{ pid: number }>`
    select pid from pg_stat_activity
    where datname = current_database() and application_name like 'dc-worker%' and wait_event_type = 'Lock'`.execute(db);
  return rows.map((row) => row.pid);
};

describe("a worker killed after its apply committed, before the job was completed", () => {
  it("is run again by a restarted worker, which changes nothing", { timeout: 120_000 }, async () => {
    // No enrollment: the worker processes run the collection engine, which would change the debts meanwhile.
    const campaign = await insertCampaign(db, { enrolling: false });
    const seed = await insertSnapshot(db, campaign, [
      Array.from({ length: 20 }, (_, i) => ({ internal_id: `acc-${i}`, remaining_amount: 200, currency: "EUR" })),
    ]);
    expect(await applySnapshot({ db, clock: fixedClock(new Date()), ids: testIds, links: testLinks }, snapshotKey(seed))).toMatchObject({
      outcome: "completed",
    });
    const payments = holdTransaction(db, async (trx) => {
      await sql`lock table payments in access exclusive mode`.execute(trx);
    });
    const heldPayments = await payments;
    const id = await insertSnapshot(
      db,
      campaign,
      [Array.from({ length: 20 }, (_, i) => ({ internal_id: `acc-${i}`, remaining_amount: 150, currency: "EUR" }))],
      { enqueue: true },
    );
    const env = { DATABASE_URL: url, NODE_ENV: "development", WORKER_STALE_LOCK_SECONDS: "6", LOG_LEVEL: "info" };
    const first = spawnWorker(env);
    running.push(first);
    await waitFor("the apply to wait for the payments table", async () => (await workerBackendsWaitingOnLock())[0]);

    // The job's row, held: graphile-worker's completion waits for it, after the apply's commit.
    const heldJob = await holdTransaction(db, async (trx) => {
      const { rows } =
        await sql`select id from graphile_worker._private_jobs where key = ${`apply_snapshot:${id}`} for update`.execute(
          trx,
        );
      expect(rows).toHaveLength(1);
    });
    await heldPayments.release();
    await waitFor(
      "the snapshot to be completed",
      async () => ((await snapshotState(db, id)).status === "completed" ? true : undefined),
      { timeoutMs: 45_000 },
    );
    await waitFor("the job's completion to wait for its row", async () => (await workerBackendsWaitingOnLock())[0]);
    const applied = await fingerprint(db, campaign.companyId);
    const paymentCount = async () => {
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from payments where snapshot_id = ${id}`.execute(db);
      return rows[0]?.n;
    };
    expect(await paymentCount()).toBe(20);

    first.child.kill("SIGKILL");
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
    // A killed process's backend waiting on a lock does not notice: it is ended as the kill would end it mid-send.
    await sql`
      select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and application_name like 'dc-worker%'`.execute(db);
    await heldJob.release();
    await waitFor("the killed worker's backends to end", async () => {
      const { rows } = await sql`
        select 1 from pg_stat_activity where datname = current_database() and application_name like 'dc-worker%'`.execute(
        db,
      );
      return rows.length === 0 ? true : undefined;
    });

    const second = spawnWorker(env);
    running.push(second);
    await waitFor(
      "the job to be done",
      async () => {
        const { rows } =
          await sql`select 1 from graphile_worker._private_jobs where key = ${`apply_snapshot:${id}`}`.execute(db);
        return rows.length === 0 ? true : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(await snapshotState(db, id)).toMatchObject({ status: "completed", core_applied: true });
    expect(await fingerprint(db, campaign.companyId)).toBe(applied);
    expect(await paymentCount()).toBe(20);
    expect(await ledgerViolations(db, campaign.companyId)).toEqual([]);
    expect(second.records.filter((record) => record["msg"] === "snapshot processed")).toMatchObject([
      { snapshotId: id, outcome: "skipped", attempt: 2 },
    ]);
    const { rows: queues } =
      await sql`select locked_by from graphile_worker._private_job_queues where locked_by is not null`.execute(db);
    expect(queues).toEqual([]);
  });
});
