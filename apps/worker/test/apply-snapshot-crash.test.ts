/**
 * A worker killed (SIGKILL) in the middle of applying a 20,000-row snapshot
 * leaves the database as it was; another worker, running with the default
 * WORKER_STALE_LOCK_SECONDS, frees the dead worker's job and applies the
 * snapshot exactly once within 60 s of the kill.
 */
import { loadCampaignDebts } from "@dc/db";
import { useTestDatabase } from "@dc/testing";
import { Reconciliation } from "@dc/domain";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { applySnapshot } from "../src/snapshots/apply-snapshot.ts";
import { readSnapshotRows } from "../src/snapshots/read-rows.ts";
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

const SEEDED = 20_000;

const plan = (remaining: number, i: number) => ({
  external_reference: `plan-${i}`,
  status: "active",
  installments: [
    {
      external_reference: "a",
      amount: 5,
      payment_date: "2030-05-01",
      status: "paid",
      paid_at: "2030-05-01T10:00:00+02:00",
      external_payment_id: `pay-${i}`,
    },
    { external_reference: "b", amount: remaining, payment_date: "2030-07-01", status: "pending" },
  ],
});

/** 18,000 changed balances (one in ten with a plan), 2,000 new debts; the other 2,000 seeded debts are omitted. */
const crashRows = (): Array<Record<string, unknown>> => [
  ...Array.from({ length: 18_000 }, (_, i) => {
    const remaining = 50 + (i % 50);
    return {
      internal_id: `acc-${i}`,
      remaining_amount: remaining,
      currency: "EUR",
      ...(i % 10 === 0 ? { payment_plan: plan(remaining, i) } : {}),
    };
  }),
  ...Array.from({ length: 2_000 }, (_, i) => ({ internal_id: `new-${i}`, remaining_amount: 10, currency: "EUR" })),
];

describe("a worker killed while applying a snapshot", () => {
  it(
    "leaves every debt as it was, and another running worker applies the snapshot exactly once within 60 s",
    { timeout: 180_000 },
    async () => {
      // No enrollment: the worker processes run the collection engine, which would change the debts meanwhile.
      const campaign = await insertCampaign(db, { enrolling: false });
      const seed = await insertSnapshot(db, campaign, [
        Array.from({ length: SEEDED }, (_, i) => ({ internal_id: `acc-${i}`, remaining_amount: 200, currency: "EUR" })),
      ]);
      expect(await applySnapshot({ db, clock: fixedClock(new Date()), ids: testIds, links: testLinks }, snapshotKey(seed))).toMatchObject({
        outcome: "completed",
      });

      const rows = crashRows();
      const current = await loadCampaignDebts(db, campaign.companyId, campaign.campaignId);
      const expected = Reconciliation.plan(current.debts, readSnapshotRows([{ chunk_index: 0, body: JSON.stringify({ rows }) }], 1).rows);
      if (Reconciliation.isRejected(expected)) throw new Error("the crash snapshot must be valid");
      const before = await fingerprint(db, campaign.companyId);

      // Payments are written late in the transaction: holding their table keeps the worker mid-way.
      let releaseLock = (): void => {};
      const released = new Promise<void>((resolve) => {
        releaseLock = resolve;
      });
      let locked = (): void => {};
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holder = db.transaction().execute(async (trx) => {
        await sql`lock table payments in access exclusive mode`.execute(trx);
        locked();
        await released;
      });
      await isLocked;

      const id = await insertSnapshot(db, campaign, [rows], { enqueue: true });
      const first = spawnWorker({ DATABASE_URL: url, NODE_ENV: "development", LOG_LEVEL: "warn" });
      running.push(first);
      await waitFor(
        "the snapshot to be processing",
        async () => ((await snapshotState(db, id)).status === "processing" ? true : undefined),
        { timeoutMs: 60_000 },
      );
      const backend = await waitFor(
        "the worker's transaction to wait for the payments table",
        async () => {
          const { rows: waiting } = await sql<{ pid: number }>`
          select pid from pg_stat_activity
          where datname = current_database() and application_name = 'dc-worker' and wait_event_type = 'Lock'`.execute(
            db,
          );
          return waiting[0]?.pid;
        },
        { timeoutMs: 60_000 },
      );

      const second = spawnWorker({ DATABASE_URL: url, NODE_ENV: "development", LOG_LEVEL: "info" });
      running.push(second);
      await waitFor(
        "the second worker to start",
        () => (second.records.some((record) => record["msg"] === "worker started") ? true : undefined),
        { timeoutMs: 60_000 },
      );

      first.child.kill("SIGKILL");
      const killedAt = performance.now();
      expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
      releaseLock();
      await holder;
      await waitFor("the killed worker's backend to end", async () => {
        const { rows: left } = await sql`select 1 from pg_stat_activity where pid = ${backend}`.execute(db);
        return left.length === 0 ? true : undefined;
      });
      expect(await fingerprint(db, campaign.companyId)).toBe(before);
      expect(await snapshotState(db, id)).toMatchObject({ status: "processing", core_applied: false, counts: null });

      await waitFor(
        "the snapshot to be completed",
        async () => ((await snapshotState(db, id)).status === "completed" ? true : undefined),
        { timeoutMs: 60_000 },
      );
      expect(performance.now() - killedAt).toBeLessThan(60_000);

      expect(await snapshotState(db, id)).toMatchObject({ core_applied: true, counts: expected.counts });
      expect(expected.counts).toMatchObject({
        rows: 20_000,
        created: 2_000,
        updated: 18_000,
        settled: 2_000,
        plans_replaced: 1_800,
      });
      const { rows: totals } = await sql<{ debts: number; payments: number; plans: number }>`
      select (select count(*)::int from debts where campaign_id = ${campaign.campaignId}) as debts,
        (select count(*)::int from payments where snapshot_id = ${id}) as payments,
        (select count(*)::int from payment_plans where company_id = ${campaign.companyId}) as plans`.execute(db);
      expect(totals[0]).toEqual({ debts: SEEDED + 2_000, payments: expected.counts.payments, plans: 1_800 });
      expect(await ledgerViolations(db, campaign.companyId)).toEqual([]);
      // The worker logs the outcome after its commit, which the test may see first.
      await waitFor("the second worker's log of the outcome", () =>
        second.records.some((record) => record["msg"] === "snapshot processed") ? true : undefined,
      );
      expect(second.records.filter((record) => record["msg"] === "snapshot processed")).toMatchObject([
        { snapshotId: id, outcome: "completed", attempt: 2 },
      ]);
    },
  );
});
