/**
 * The hand-off between the snapshots of one campaign queued at once: when a
 * job of the campaign's queue ends, the next one starts once the queue's
 * unlock is recorded (src/queue-handoff.ts), not on the worker's next poll.
 * The poll is set to a minute here, so only the hand-off can start the later
 * jobs within the wait below.
 */
import { enqueueApplySnapshot, snapshotQueueName } from "@dc/db";
import { useTestDatabase } from "@dc/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "@dc/runtime";
import { type RunningWorker, startWorker } from "../src/worker.ts";
import { captureLogger } from "./log-capture.ts";
import { accountRow as row, debtsOf, insertCampaign, insertSnapshot, testIds, testLinks } from "./snapshot-fixtures.ts";
import { waitFor } from "./wait-for.ts";

const { db, url } = await useTestDatabase();
const { logger } = captureLogger();
const POLL_INTERVAL_MS = 60_000;

describe("snapshots of one campaign queued at once", () => {
  let worker: RunningWorker;

  beforeAll(async () => {
    worker = await startWorker({
      connectionString: url,
      concurrency: 2,
      clock: systemClock,
      logger,
      ids: testIds, links: testLinks,
      pollIntervalMs: POLL_INTERVAL_MS,
    });
  });
  afterAll(async () => {
    await worker.stop();
  });

  it("start one after the other as each ends, without waiting for a poll, in acceptance order", async () => {
    const campaign = await insertCampaign(db);
    const ids: Array<number> = [];
    for (const remaining of [50, 40, 30, 20, 10]) ids.push(await insertSnapshot(db, campaign, [[row("a", remaining)]]));
    // Queued as the api queues them, all in one transaction: every job is due
    // at once, and all but the first wait behind it in the campaign's queue.
    await db.transaction().execute(async (trx) => {
      for (const id of ids) {
        await enqueueApplySnapshot(trx, { id, companyId: campaign.companyId, campaignId: campaign.campaignId });
      }
    });

    // Four hand-offs, each of which would wait for a poll (a minute) without src/queue-handoff.ts.
    const completed = await waitFor(
      "every snapshot of the campaign to complete",
      async () => {
        const { rows } = await sql<{ id: number; status: string; completed_at: Date | null }>`
          select id, status, completed_at from snapshots where id = any(${ids}::int[]) order by accepted_seq`.execute(
          db,
        );
        return rows.every((snapshot) => snapshot.status === "completed") ? rows : undefined;
      },
      { timeoutMs: POLL_INTERVAL_MS / 3 },
    );

    expect(completed.map((snapshot) => snapshot.id)).toEqual(ids);
    const times = completed.map((snapshot) => snapshot.completed_at?.getTime() ?? Number.NaN);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect((await debtsOf(db, campaign.campaignId)).map((debt) => debt.balance_minor)).toEqual([1000]);
    // graphile-worker deletes a job after its task returns, just after the snapshot's commit: wait for it.
    await waitFor(
      "the campaign's queue to hold no job",
      async () => {
        const { rows: left } =
          await sql`select 1 from graphile_worker.jobs where queue_name = ${snapshotQueueName(campaign.campaignId)}`.execute(
            db,
          );
        return left.length === 0 ? true : undefined;
      },
      { timeoutMs: 5_000 },
    );
  });
});
