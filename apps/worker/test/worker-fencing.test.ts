/**
 * Fencing between real worker processes (docs/decisions/0357): a worker
 * whose lease renewals are blocked, in the middle of applying a snapshot,
 * ends its process (status 75) while its job is still its own; it writes
 * nothing; only then does the other worker take the job over, and applies
 * the snapshot once.
 */
import { loadCampaignDebts } from "@dc/db";
import { holdTransaction, useTestDatabase } from "@dc/testing";
import { Reconciliation } from "@dc/domain";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { applySnapshot } from "../src/snapshots/apply-snapshot.ts";
import { readSnapshotRows } from "../src/snapshots/read-rows.ts";
import { FENCED_EXIT_CODE, LIVENESS_PREFIX } from "../src/worker-lease.ts";
import {
  fingerprint,
  insertCampaign,
  insertSnapshot,
  ledgerViolations,
  snapshotState,
  snapshotKey,
  testIds, testLinks,
} from "./snapshot-fixtures.ts";
import { spawnWorker, stopWorkers, type WorkerProcess } from "./worker-process.ts";
import { waitFor } from "./wait-for.ts";

const { db, url } = await useTestDatabase();
const running: Array<WorkerProcess> = [];

afterEach(() => stopWorkers(running));

/** Both workers run with this grace: the first fences 3 s after its last renewal, the second frees its job 6 s after. */
const env = { DATABASE_URL: url, NODE_ENV: "development", WORKER_STALE_LOCK_SECONDS: "6", LOG_LEVEL: "info" };

const jobLockOf = async (snapshotId: number): Promise<string | null | undefined> => {
  const { rows } = await sql<{ locked_by: string | null }>`
    select locked_by from graphile_worker.jobs where key = ${`apply_snapshot:${snapshotId}`}`.execute(db);
  return rows[0]?.locked_by;
};

const backendsOf = async (applicationName: string): Promise<Array<{ pid: number; waiting: boolean }>> => {
  const { rows } = await sql<{ pid: number; waiting: boolean }>`
    select pid, wait_event_type is not distinct from 'Lock' as waiting from pg_stat_activity
    where datname = current_database() and application_name = ${applicationName}`.execute(db);
  return rows;
};

describe("a worker that cannot renew its lease", () => {
  it(
    "ends its process before another worker can take its job, which then runs once, on the other worker",
    { timeout: 120_000 },
    async () => {
      // No enrollment: the worker processes run the collection engine, which would change the debts meanwhile.
      const campaign = await insertCampaign(db, { enrolling: false });
      const seed = await insertSnapshot(db, campaign, [
        Array.from({ length: 50 }, (_, i) => ({ internal_id: `acc-${i}`, remaining_amount: 200, currency: "EUR" })),
      ]);
      expect(await applySnapshot({ db, clock: fixedClock(new Date()), ids: testIds, links: testLinks }, snapshotKey(seed))).toMatchObject({
        outcome: "completed",
      });
      const rows = Array.from({ length: 50 }, (_, i) => ({ internal_id: `acc-${i}`, remaining_amount: 150, currency: "EUR" }));
      const current = await loadCampaignDebts(db, campaign.companyId, campaign.campaignId);
      const expected = Reconciliation.plan(current.debts, readSnapshotRows([{ chunk_index: 0, body: JSON.stringify({ rows }) }], 1).rows);
      if (Reconciliation.isRejected(expected)) throw new Error("the snapshot must be valid");
      const before = await fingerprint(db, campaign.companyId);

      // Payments are written late in the apply transaction: holding their table keeps the first worker mid-way.
      const payments = await holdTransaction(db, (trx) => sql`lock table payments in access exclusive mode`.execute(trx));
      const id = await insertSnapshot(db, campaign, [rows], { enqueue: true });
      const first = spawnWorker(env);
      running.push(first);
      const applying = await waitFor(
        "the first worker's apply to wait for the payments table",
        async () => (await backendsOf("dc-worker")).find((backend) => backend.waiting)?.pid,
        { timeoutMs: 60_000 },
      );
      const firstPool = await jobLockOf(id);
      expect(firstPool).toMatch(/^pool-/);
      expect(await backendsOf(`${LIVENESS_PREFIX}${firstPool}`)).toHaveLength(1);

      const second = spawnWorker(env);
      running.push(second);
      await waitFor(
        "the second worker to start",
        () => (second.records.some((record) => record["msg"] === "worker started") ? true : undefined),
        { timeoutMs: 60_000 },
      );

      // The first worker's renewals now wait behind this lock: its lease stops moving.
      const lease = await holdTransaction(db, (trx) =>
        sql`select 1 from worker_leases where pool_id = ${firstPool} for update`.execute(trx),
      );
      let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      try {
        exit = await first.exited;
        // Observed at its exit: the job is still the first worker's, and no sweep has freed it.
        expect(await jobLockOf(id)).toBe(firstPool);
        expect(second.records.filter((record) => record["msg"] === "unlocked jobs of dead workers")).toEqual([]);
      } finally {
        await lease.release();
      }
      expect(exit).toEqual({ code: FENCED_EXIT_CODE, signal: null });
      expect(first.records.filter((record) => record["level"] === 60)).toMatchObject([
        { workerPool: firstPool, staleLockSeconds: 6 },
      ]);

      // The fenced worker's transaction, cut off with its process, commits nothing.
      await payments.release();
      await waitFor("the fenced worker's apply backend to end", async () => {
        const { rows: left } = await sql`select 1 from pg_stat_activity where pid = ${applying}`.execute(db);
        return left.length === 0 ? true : undefined;
      });
      expect(await fingerprint(db, campaign.companyId)).toBe(before);
      expect(await snapshotState(db, id)).toMatchObject({ core_applied: false, counts: null });

      await waitFor(
        "the snapshot to be completed",
        async () => ((await snapshotState(db, id)).status === "completed" ? true : undefined),
        { timeoutMs: 60_000 },
      );
      expect(second.records.filter((record) => record["msg"] === "unlocked jobs of dead workers")).toMatchObject([
        { pools: [firstPool] },
      ]);
      expect(await snapshotState(db, id)).toMatchObject({ core_applied: true, counts: expected.counts });
      expect(await ledgerViolations(db, campaign.companyId)).toEqual([]);
      await waitFor("the second worker's log of the outcome", () =>
        second.records.some((record) => record["msg"] === "snapshot processed") ? true : undefined,
      );
      expect(second.records.filter((record) => record["msg"] === "snapshot processed")).toMatchObject([
        { snapshotId: id, outcome: "completed", attempt: 2 },
      ]);
      expect(first.records.filter((record) => record["msg"] === "snapshot processed")).toEqual([]);
      // The fenced pool's lease goes once its job is freed; the second worker's stays while it runs.
      await waitFor("the fenced pool's lease to be deleted", async () => {
        const { rows: leases } = await sql`select 1 from worker_leases where pool_id = ${firstPool}`.execute(db);
        return leases.length === 0 ? true : undefined;
      });
    },
  );
});
