import { sql } from "kysely";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool } from "../src/connection.ts";
import { useTestDatabase } from "../src/testing/index.ts";
import { installQueueWakeup } from "../src/worker-queue-wakeup.ts";

const { db, url } = await useTestDatabase();

describe("the queue wake-up trigger", () => {
  const pool = createPool({ connectionString: url, max: 1 });
  let listener: pg.PoolClient;
  const received: Array<unknown> = [];
  /** Notifications committed so far: a query on the listening connection delivers every one before it answers. */
  const notified = async (): Promise<Array<unknown>> => {
    await listener.query("select 1");
    return received.splice(0);
  };

  beforeAll(async () => {
    listener = await pool.connect();
    listener.on("notification", (message) => void received.push(JSON.parse(message.payload ?? "null")));
    await listener.query('listen "jobs:insert"');
  });
  afterAll(async () => {
    listener.release();
    await pool.end();
  });

  it("is installed by migrateAll, once, however often it is installed again", async () => {
    const triggers = async (): Promise<Array<string>> =>
      (
        await sql<{ tgname: string }>`select tgname from pg_trigger
          where tgrelid = 'graphile_worker._private_job_queues'::regclass and not tgisinternal`.execute(db)
      ).rows.map((row) => row.tgname);
    expect(await triggers()).toEqual(["dc_wake_workers_on_queue_unlock"]);
    await installQueueWakeup(db);
    await installQueueWakeup(db);
    expect(await triggers()).toEqual(["dc_wake_workers_on_queue_unlock"]);
  });

  it("notifies jobs:insert when a named queue is unlocked, at commit, and not when it is locked", async () => {
    await sql`select graphile_worker.add_job('noop', '{}'::json, queue_name := 'wakeup-test')`.execute(db);
    await notified();
    const { rows } = await sql<{ id: number }>`update graphile_worker._private_job_queues
      set locked_by = 'pool-test', locked_at = now() where queue_name = 'wakeup-test' returning id`.execute(db);
    expect(await notified()).toEqual([]);

    await db.transaction().execute(async (trx) => {
      await sql`update graphile_worker._private_job_queues set locked_by = null, locked_at = null
        where queue_name = 'wakeup-test'`.execute(trx);
      expect(await notified()).toEqual([]);
    });
    expect(await notified()).toEqual([{ count: 1, queue: rows[0]?.id }]);
  });
});
