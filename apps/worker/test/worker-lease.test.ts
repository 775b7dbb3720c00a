/**
 * A pool's lease (docs/decisions/0357): renewed through a connection of its
 * own, which may be cut and comes back; and the fence, called when renewals
 * are blocked for half the grace, while the lease has not yet expired, so no
 * other worker can have taken the pool for dead.
 */
import { EventEmitter } from "node:events";
import { holdTransaction, useTestDatabase } from "@dc/testing";
import type { WorkerEvents } from "graphile-worker";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { type Fence, holdLeases, LIVENESS_PREFIX } from "../src/worker-lease.ts";
import { unlockDeadWorkers } from "../src/stale-locks.ts";
import { captureLogger } from "./log-capture.ts";
import { waitFor } from "./wait-for.ts";

const { db, url } = await useTestDatabase();
const { logger, records } = captureLogger();

const POOL = "pool-lease-test";
const GRACE_SECONDS = 6;

/** The lease's renewal time as the database's epoch microseconds, and whether the sweep would take the pool for dead. */
const leaseOf = async (): Promise<{ renewed: string; expired: boolean } | undefined> => {
  const { rows } = await sql<{ renewed: string; expired: boolean }>`
    select (extract(epoch from renewed_at) * 1000000)::bigint::text as renewed,
      renewed_at + make_interval(secs => grace_seconds) <= now() as expired
    from worker_leases where pool_id = ${POOL}`.execute(db);
  return rows[0];
};

/** Ends the pool's lease connection from the server side, as an administrator or a failover would. */
const cutConnection = async (): Promise<number> => {
  const { rows } = await sql<{ pid: number }>`
    select pid from pg_stat_activity where application_name = ${`${LIVENESS_PREFIX}${POOL}`}`.execute(db);
  await sql`select pg_terminate_backend(pid) from pg_stat_activity
    where application_name = ${`${LIVENESS_PREFIX}${POOL}`}`.execute(db);
  return rows.length;
};

describe("a worker pool's lease", () => {
  it(
    "is renewed again after its connection is cut, and fences while still unexpired when renewals are blocked",
    { timeout: 60_000 },
    async () => {
      const events: WorkerEvents = new EventEmitter();
      let fenced: (fence: Fence & { expiredAtFence: Promise<boolean | undefined> }) => void = () => {};
      const fence = new Promise<Fence & { expiredAtFence: Promise<boolean | undefined> }>((resolve) => (fenced = resolve));
      const leases = holdLeases(events, {
        connectionString: url,
        graceSeconds: GRACE_SECONDS,
        logger,
        // Read at once, as another worker's sweep would read it at that moment.
        onFenced: (what) => fenced({ ...what, expiredAtFence: leaseOf().then((lease) => lease?.expired) }),
      });
      events.emit("pool:create", { workerPool: { id: POOL } } as never);
      try {
        expect(leases.own).toEqual(new Set([POOL]));
        let renewed = (await waitFor("the first renewal", leaseOf)).renewed;

        // Cut three times: each time a later renewal lands through a new connection.
        for (let cut = 0; cut < 3; cut++) {
          expect(await waitFor("the lease connection", async () => ((await cutConnection()) > 0 ? true : undefined))).toBe(
            true,
          );
          const before = renewed;
          renewed = await waitFor("a renewal after the cut", async () => {
            const lease = await leaseOf();
            return lease !== undefined && BigInt(lease.renewed) > BigInt(before) ? lease.renewed : undefined;
          });
        }

        // Renewals now wait behind this lock: the lease stops moving and the pool fences.
        const held = await holdTransaction(db, (trx) =>
          sql`select 1 from worker_leases where pool_id = ${POOL} for update`.execute(trx),
        );
        const blockedAt = (await leaseOf())?.renewed;
        try {
          const fencedWith = await fence;
          expect(fencedWith.pool).toBe(POOL);
          // At the fence the lease is not expired: no sweep can yet take the pool for dead.
          expect(await fencedWith.expiredAtFence).toBe(false);
          expect(await unlockDeadWorkers(db, { graceSeconds: GRACE_SECONDS })).toEqual([]);
          // The blocked renewal gives up by its statement timeout, so it cannot land once the lock goes.
          await waitFor("the blocked renewal to give up", async () => {
            const { rows } = await sql`select 1 from pg_stat_activity
              where application_name = ${`${LIVENESS_PREFIX}${POOL}`} and wait_event_type = 'Lock'`.execute(db);
            return rows.length === 0 ? true : undefined;
          });
        } finally {
          await held.release();
        }
        expect((await leaseOf())?.renewed).toBe(blockedAt);
        expect(records.filter((record) => record["msg"] === "could not renew the worker lease")).not.toEqual([]);
      } finally {
        await leases.stop();
      }
      expect(await leaseOf()).toBeUndefined();
    },
  );
});
