/**
 * SQL marked PREPARED runs as a named prepared statement on its connection
 * (docs/decisions/0016), and survives a migration that changes its result type.
 * A pool with `genericPlans` plans such a statement once (docs/decisions/0017).
 */
import { sql } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase, PREPARED, withServerSetting } from "../src/connection.ts";
import { listDebtPage } from "../src/queries/debts/list-debts.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { url } = await useTestDatabase();
// One connection, so every statement below meets the same session's prepared statements.
const db = createDatabase({ connectionString: url, max: 1 });
afterAll(() => db.destroy());

const preparedHere = async () =>
  (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows.map((row) => row.statement);

describe("prepared statements", () => {
  it("prepare marked SQL once per connection and leave other SQL unnamed", async () => {
    await sql`create table prepared_probe (id int primary key, label text)`.execute(db);
    await sql`insert into prepared_probe values (1, 'one'), (2, 'two')`.execute(db);
    const marked = (id: number) => sql<{ id: number; label: string }>`${sql.raw(PREPARED)}select * from prepared_probe where id = ${id}`.execute(db);

    expect((await marked(1)).rows).toEqual([{ id: 1, label: "one" }]);
    expect((await marked(2)).rows).toEqual([{ id: 2, label: "two" }]);
    await sql`select * from prepared_probe where id = ${1}`.execute(db);
    const statements = await preparedHere();
    expect(statements.filter((text) => text.includes("prepared_probe"))).toEqual([
      "/* prepared */ select * from prepared_probe where id = $1",
    ]);
  });

  it("answer correctly after a migration changes the statement's result type, then prepare again", async () => {
    const marked = () => sql<Record<string, unknown>>`${sql.raw(PREPARED)}select * from prepared_probe where id = ${1}`.execute(db);
    await marked();
    await sql`alter table prepared_probe add column note text default 'added'`.execute(db);
    expect((await marked()).rows).toEqual([{ id: 1, label: "one", note: "added" }]);
    expect((await marked()).rows).toEqual([{ id: 1, label: "one", note: "added" }]);
    expect((await preparedHere()).filter((text) => text.includes("prepared_probe"))).toHaveLength(1);
  });
});

describe("generic plans", () => {
  /** Plans PostgreSQL made for the debt list on `pool`'s one connection, after seven pages of different offsets. */
  const listPlans = async (pool: typeof db) => {
    for (let page = 0; page < 7; page++) {
      await listDebtPage(pool, { companyId: 1, scope: { kind: "creditor", creditorId: 1 }, filters: {}, limit: 20, offset: page * 20 });
    }
    const { rows } = await sql<{ generic_plans: number; custom_plans: number }>`
      select generic_plans, custom_plans from pg_prepared_statements where statement like '%select meta.*%'`.execute(pool);
    return rows;
  };

  it("plan the debt list once on a pool with generic plans, where a default pool plans each of the first calls", async () => {
    const generic = createDatabase({ connectionString: url, max: 1, genericPlans: true });
    try {
      expect(await listPlans(generic)).toEqual([{ generic_plans: 7, custom_plans: 0 }]);
    } finally {
      await generic.destroy();
    }
    const plain = createDatabase({ connectionString: url, max: 1 });
    try {
      const [plans] = await listPlans(plain);
      // PostgreSQL always plans the first five calls of a prepared statement with their values.
      expect(plans?.custom_plans).toBeGreaterThanOrEqual(5);
    } finally {
      await plain.destroy();
    }
  });

  it("keep the server settings the connection string already carries", async () => {
    const withTimeout = new URL(url);
    withTimeout.searchParams.set("options", "-c statement_timeout=1234");
    const generic = createDatabase({ connectionString: withTimeout.toString(), max: 1, genericPlans: true });
    try {
      const { rows } = await sql<{ mode: string; timeout: string }>`
        select current_setting('plan_cache_mode') as mode, current_setting('statement_timeout') as timeout`.execute(generic);
      expect(rows).toEqual([{ mode: "force_generic_plan", timeout: "1234ms" }]);
    } finally {
      await generic.destroy();
    }
    const { rows } = await sql<{ mode: string }>`select current_setting('plan_cache_mode') as mode`.execute(db);
    expect(rows).toEqual([{ mode: "auto" }]);
  });

  it("add the setting to a connection string that is not a URL as an option", () => {
    expect(withServerSetting("/var/run/postgresql collections", "-c plan_cache_mode=force_generic_plan")).toEqual({
      connectionString: "/var/run/postgresql collections",
      options: "-c plan_cache_mode=force_generic_plan",
    });
    expect(withServerSetting("postgres://app@db:5432/collections?options=-c%20x%3D1", "-c y=2")).toEqual({
      connectionString: "postgres://app@db:5432/collections?options=-c+x%3D1+-c+y%3D2",
    });
  });

  it("keep both the URL's settings and the setting for a socket URL without a host", () => {
    const merged = withServerSetting("postgres://app:s%40cret@/collections?host=/var/run/pg&options=-c%20x%3D1", "-c y=2");
    expect(merged).toEqual({
      connectionString: "postgres://app:s%40cret@/collections?host=%2Fvar%2Frun%2Fpg&options=-c+x%3D1+-c+y%3D2",
    });
    // What node-postgres makes of it: the socket, the user, both settings.
    const client = new pg.Client(merged) as unknown as { connectionParameters: Record<string, unknown> };
    const { options, host, user, password, database } = client.connectionParameters;
    expect({ options, host, user, password, database }).toEqual({
      options: "-c x=1 -c y=2",
      host: "/var/run/pg",
      user: "app",
      password: "s@cret",
      database: "collections",
    });
  });
});
