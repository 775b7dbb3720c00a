import { silentWorkerLogger } from "@dc/db";
import { useTestDatabase } from "@dc/testing";
import { quickAddJob } from "graphile-worker";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixedClock } from "@dc/runtime";
import { LIVENESS_PREFIX } from "../src/worker-lease.ts";
import { JOB_QUEUE_POOL_NAME, type RunningWorker, startWorker, WORKER_POOL_NAME } from "../src/worker.ts";
import { captureLogger } from "./log-capture.ts";
import { testIds, testLinks } from "./snapshot-fixtures.ts";
import { hoursFrom, insertCounter, insertGrant, insertOwner, insertToken, remainingIds } from "./oauth-fixtures.ts";
import { waitFor } from "./wait-for.ts";

const { db, url } = await useTestDatabase();
const now = new Date("2030-06-15T12:00:00.000Z");
const { logger, records } = captureLogger();

const jobExists = async (id: string): Promise<boolean> => {
  const { rows } = await sql<{ id: string }>`select id from graphile_worker.jobs where id = ${id}`.execute(db);
  return rows.length > 0;
};
const waitUntilJobGone = (id: string): Promise<true> =>
  waitFor(`job ${id} to leave graphile_worker.jobs`, async () => ((await jobExists(id)) ? undefined : true));

/**
 * The worker's connections to this database: its tasks' pool, graphile-worker's
 * and the lease connections (not this file's pool, nor the pools `quickAddJob`
 * makes and graphile-worker ends without waiting).
 */
const workerConnections = async (): Promise<number> => {
  const { rows } = await sql<{ count: number }>`
    select count(*)::int as count from pg_stat_activity
    where datname = current_database() and backend_type = 'client backend'
      and (application_name in (${WORKER_POOL_NAME}, ${JOB_QUEUE_POOL_NAME}) or starts_with(application_name, ${LIVENESS_PREFIX}))`.execute(db);
  return rows[0]?.count ?? -1;
};

describe("startWorker", () => {
  let worker: RunningWorker;

  beforeAll(async () => {
    worker = await startWorker({
      connectionString: url,
      concurrency: 2,
      clock: fixedClock(now),
      logger,
      ids: testIds,
      links: testLinks,
    });
  });
  afterAll(async () => {
    await worker.stop();
  });

  it("registers the hourly purge in graphile-worker's crontab", async () => {
    const identifiers = await waitFor("the crontab to be registered", async () => {
      const { rows } = await sql<{ identifier: string }>`
        select identifier from graphile_worker._private_known_crontabs order by identifier`.execute(db);
      return rows.length > 0 ? rows.map((row) => row.identifier) : undefined;
    });
    expect(identifiers).toEqual(["purge_expired_hourly"]);
  });

  it("runs a queued purge_expired job with the injected clock and completes it", async () => {
    const owner = await insertOwner(db);
    const oldGrant = await insertGrant(db, owner, hoursFrom(now, -240));
    await insertToken(db, "oauth_access_tokens", owner, oldGrant, hoursFrom(now, -48));
    const liveGrant = await insertGrant(db, owner, hoursFrom(now, -240));
    const liveToken = await insertToken(db, "oauth_access_tokens", owner, liveGrant, hoursFrom(now, 1));

    const job = await quickAddJob({ connectionString: url, logger: silentWorkerLogger }, "purge_expired", {});
    await waitUntilJobGone(job.id);

    expect(await remainingIds(db, "oauth_access_tokens")).toEqual([liveToken]);
    expect(await remainingIds(db, "oauth_grants")).toEqual([liveGrant]);
    // Filtered by job: the hourly cron may add its own job if this runs at minute 0.
    const purged = records.filter((record) => record["msg"] === "expired rows purged" && record["jobId"] === job.id);
    expect(purged).toHaveLength(1);
    expect(purged[0]).toMatchObject({
      task: "purge_expired",
      jobId: job.id,
      purged: { oauth_access_tokens: 1, oauth_refresh_tokens: 0, oauth_authorization_codes: 0, rate_limit_counters: 0, oauth_grants: 1, oauth_login_sessions: 0, idempotency_keys: 0 },
    });
  });

  it("drops a job whose payload does not decode, without purging or retrying", async () => {
    await insertCounter(db, "expired", hoursFrom(now, -1));
    const job = await quickAddJob({ connectionString: url, logger: silentWorkerLogger }, "purge_expired", { force: true });
    await waitUntilJobGone(job.id);

    const counters = await db.selectFrom("rate_limit_counters").select("key").execute();
    expect(counters).toEqual([{ key: "expired" }]);
    const rejected = records.filter((record) => record["msg"] === "invalid job payload: job dropped without retry");
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ task: "purge_expired", jobId: job.id, level: 50 });
  });

  it("stops gracefully, its connections closed by the time stop() resolves", async () => {
    expect(await workerConnections()).toBeGreaterThan(0);
    await expect(worker.stop()).resolves.toBeUndefined();
    // Not waited for: a caller may stop the database next (npm start's embedded cluster),
    // which would cut a connection still open and fail the process's exit.
    expect(await workerConnections()).toBe(0);
    await expect(worker.finished).resolves.toBeUndefined();
  });
});
