/**
 * SQL marked PREPARED runs as a named prepared statement on its connection
 * (docs/decisions/0016), and survives a migration that changes its result type.
 */
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase, PREPARED } from "../src/connection.ts";
import { useTestDatabase } from "../src/testing/index.ts";

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
