/**
 * A pool's `end()` resolves once its connections are closed, not once they
 * are asked to close: whatever follows a stop (the embedded cluster's own
 * stop, the process's exit) never cuts a connection still open.
 */
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase, createPool } from "../src/connection.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { db, url } = await useTestDatabase();
afterAll(() => db.destroy());

const connectionsNamed = async (name: string): Promise<number> => {
  const { rows } = await sql<{ count: number }>`
    select count(*)::int as count from pg_stat_activity
    where datname = current_database() and application_name = ${name}`.execute(db);
  return rows[0]?.count ?? -1;
};

describe("ending a pool", () => {
  it("resolves after every connection of the pool has closed, idle or released during the end", async () => {
    const pool = createPool({ connectionString: url, max: 4, applicationName: "pool-end-probe" });
    const clients = await Promise.all([pool.connect(), pool.connect(), pool.connect(), pool.connect()]);
    await Promise.all(clients.map((client) => client.query("select 1")));
    for (const client of clients.slice(0, 2)) client.release();
    expect(await connectionsNamed("pool-end-probe")).toBe(4);

    const ended = pool.end();
    // Two clients are still checked out when the end begins; the end waits for them.
    for (const client of clients.slice(2)) client.release();
    await ended;
    expect(await connectionsNamed("pool-end-probe")).toBe(0);
  });

  it("holds for a Kysely instance's destroy()", async () => {
    const probe = createDatabase({ connectionString: url, max: 2, applicationName: "destroy-probe" });
    await Promise.all([sql`select 1`.execute(probe), sql`select 2`.execute(probe)]);
    expect(await connectionsNamed("destroy-probe")).toBeGreaterThan(0);
    await probe.destroy();
    expect(await connectionsNamed("destroy-probe")).toBe(0);
  });
});
