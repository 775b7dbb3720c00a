/**
 * A campaign's snapshot jobs are taken by graphile-worker in `run_at` order,
 * so `run_at` must follow acceptance order even when the later acceptance's
 * transaction began first (docs/decisions/0353).
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { enqueueApplySnapshot, lockSnapshotAcceptance } from "../src/queries/snapshots/enqueue-apply.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { db } = await useTestDatabase();

const jobOf = async (snapshotId: number): Promise<{ run_at: Date; priority: number }> => {
  const { rows } = await sql<{ run_at: Date; priority: number }>`
    select run_at, priority from graphile_worker._private_jobs where key = ${`apply_snapshot:${snapshotId}`}`.execute(db);
  if (rows[0] === undefined) throw new Error(`no job for snapshot ${snapshotId}`);
  return rows[0];
};
const runAtOf = async (snapshotId: number): Promise<Date> => (await jobOf(snapshotId)).run_at;

describe("enqueueApplySnapshot", () => {
  it("gives a later acceptance a later run_at, even when its transaction began first", async () => {
    const campaignId = 424_242;
    let releaseLater: () => void = () => {};
    const laterMayAccept = new Promise<void>((resolve) => (releaseLater = resolve));
    let laterBegan: () => void = () => {};
    const laterHasBegun = new Promise<void>((resolve) => (laterBegan = resolve));

    // The later acceptance: its transaction begins, then waits while another one is accepted and committed.
    const later = db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      laterBegan();
      await laterMayAccept;
      await lockSnapshotAcceptance(trx, campaignId);
      await enqueueApplySnapshot(trx, { id: 900_002, companyId: 7, campaignId });
    });
    await laterHasBegun;
    await new Promise((resolve) => setTimeout(resolve, 20));
    await db.transaction().execute(async (trx) => {
      await lockSnapshotAcceptance(trx, campaignId);
      await enqueueApplySnapshot(trx, { id: 900_001, companyId: 7, campaignId });
    });
    releaseLater();
    await later;

    expect((await runAtOf(900_002)).getTime()).toBeGreaterThan((await runAtOf(900_001)).getTime());
  });

  it("puts a snapshot's job before webhook deliveries (graphile-worker runs lower priorities first; deliveries keep 0)", async () => {
    await db
      .transaction()
      .execute((trx) => enqueueApplySnapshot(trx, { id: 900_003, companyId: 7, campaignId: 424_243 }));
    expect((await jobOf(900_003)).priority).toBe(-10);
  });

  it("names the snapshot's company in the job's payload, so the worker reads the snapshot by its key (DESIGN 6)", async () => {
    await db
      .transaction()
      .execute((trx) => enqueueApplySnapshot(trx, { id: 900_004, companyId: 42, campaignId: 424_244 }));
    const { rows } = await sql<{ payload: unknown }>`
      select payload from graphile_worker._private_jobs where key = ${"apply_snapshot:900004"}`.execute(db);
    expect(rows).toEqual([{ payload: { snapshot_id: 900_004, company_id: 42 } }]);
  });
});
