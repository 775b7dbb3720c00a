/**
 * `failSpentSnapshots` (docs/decisions/0354) fails an open snapshot
 * only when its apply job can never run again: every attempt used and none
 * running. A job still waiting for its first run or for a retry, or running
 * its last attempt right now, must be left alone: failing its snapshot would
 * end a snapshot graphile-worker is about to apply (or is applying).
 */
import { useTestDatabase } from "@dc/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { failSpentSnapshots } from "../src/tasks/apply-snapshot.ts";
import { captureLogger } from "./log-capture.ts";
import { enqueueApply, insertCampaign, insertSnapshot, snapshotState } from "./snapshot-fixtures.ts";

const { db } = await useTestDatabase();
const now = new Date("2030-06-15T12:00:00.000Z");
const { logger } = captureLogger();
const sweep = () => failSpentSnapshots({ db, clock: fixedClock(now), logger });

const jobKey = (snapshotId: number) => `apply_snapshot:${snapshotId}`;

/** A `pending` snapshot of a campaign of its own whose job is set as `job` says. */
const snapshotWithJob = async (job: { readonly attempts: number; readonly locked: boolean }): Promise<number> => {
  const campaign = await insertCampaign(db);
  const snapshotId = await insertSnapshot(db, campaign, [[]]);
  await enqueueApply(db, snapshotId, campaign.campaignId);
  await sql`
    update graphile_worker._private_jobs
    set attempts = ${job.attempts}, run_at = now() + interval '1 hour',
      locked_at = ${job.locked ? sql`now()` : sql`null`}, locked_by = ${job.locked ? "another-worker" : null}
    where key = ${jobKey(snapshotId)}`.execute(db);
  return snapshotId;
};

const attemptsOf = async (snapshotId: number) =>
  (
    await sql<{
      attempts: number;
    }>`select attempts from graphile_worker.jobs where key = ${jobKey(snapshotId)}`.execute(db)
  ).rows[0]?.attempts;

describe("the spent-job sweep", () => {
  it("fails only snapshots whose job used every attempt and is not running", async () => {
    const waiting = await snapshotWithJob({ attempts: 0, locked: false });
    const retrying = await snapshotWithJob({ attempts: 9, locked: false });
    const lastAttemptRunning = await snapshotWithJob({ attempts: 10, locked: true });
    const spent = await snapshotWithJob({ attempts: 10, locked: false });

    expect(await sweep()).toEqual([spent]);
    expect(await snapshotState(db, spent)).toMatchObject({ status: "failed", failure: { code: "processing_error" } });
    expect(await attemptsOf(spent)).toBeUndefined();
    for (const [snapshotId, attempts] of [
      [waiting, 0],
      [retrying, 9],
      [lastAttemptRunning, 10],
    ] as const) {
      expect(await snapshotState(db, snapshotId)).toMatchObject({ status: "pending", failure: null });
      expect(await attemptsOf(snapshotId)).toBe(attempts);
    }

    // The running last attempt fails without recording it: the next sweep ends its snapshot, once.
    await sql`update graphile_worker._private_jobs set locked_at = null, locked_by = null
      where key = ${jobKey(lastAttemptRunning)}`.execute(db);
    expect(await sweep()).toEqual([lastAttemptRunning]);
    expect(await snapshotState(db, lastAttemptRunning)).toMatchObject({ status: "failed" });
    expect(await sweep()).toEqual([]);
  });

  it("reads the snapshot of a spent job within the company its payload names (DESIGN 6)", async () => {
    const spent = await snapshotWithJob({ attempts: 10, locked: false });
    const other = await insertCampaign(db);
    await sql`
      update graphile_worker._private_jobs set payload = json_build_object('snapshot_id', ${spent}::bigint,
        'company_id', ${other.companyId}::bigint)
      where key = ${jobKey(spent)}`.execute(db);
    expect(await sweep()).toEqual([]);
    expect(await snapshotState(db, spent)).toMatchObject({ status: "pending", failure: null });
  });
});
