/**
 * The schema keeps DESIGN.md 6's tenant invariant, read from the catalog of
 * the migrated database (docs/decisions/0023): every table is classified in
 * `tableClasses`, and every tenant table could be distributed by
 * `company_id` as it is (its primary key and unique indexes include
 * `company_id`; its foreign keys to other tenant tables name the company on
 * both sides; no table outside the tenant data references tenant data).
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { tableClasses } from "../src/table-classes.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { db } = await useTestDatabase();

const classOf = (table: string) => tableClasses[table];

describe("the tenant keys (DESIGN 6)", () => {
  it("classify every table of the public schema", async () => {
    const { rows } = await sql<{ table: string }>`
      select c.relname as table from pg_class c
      where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
      order by 1`.execute(db);
    expect(rows.map(({ table }) => table).filter((table) => classOf(table) === undefined)).toEqual([]);
    expect(Object.keys(tableClasses).filter((table) => !rows.some((row) => row.table === table))).toEqual([]);
  });

  it("give every tenant table a company_id that is never null", async () => {
    const { rows } = await sql<{ table: string; not_null: boolean | null }>`
      select c.relname as table, a.attnotnull as not_null
      from pg_class c
      left join pg_attribute a on a.attrelid = c.oid and a.attname = 'company_id' and not a.attisdropped
      where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')`.execute(db);
    const offenders = rows.filter((row) => classOf(row.table) === "tenant" && row.not_null !== true);
    expect(offenders).toEqual([]);
  });

  it("include company_id in the primary key and in every unique index of a tenant table", async () => {
    const { rows } = await sql<{ table: string; index: string; definition: string; scoped: boolean }>`
      select t.relname as table, i.relname as index, pg_get_indexdef(i.oid) as definition,
        exists (
          select 1 from pg_attribute a
          where a.attrelid = t.oid and a.attname = 'company_id' and a.attnum = any (x.indkey::int2[])
        ) as scoped
      from pg_index x
      join pg_class i on i.oid = x.indexrelid
      join pg_class t on t.oid = x.indrelid
      where t.relnamespace = 'public'::regnamespace and (x.indisunique or x.indisprimary)`.execute(db);
    const tenantKeys = rows.filter((row) => classOf(row.table) === "tenant");
    expect(tenantKeys.length).toBeGreaterThan(0);
    expect(tenantKeys.filter((row) => !row.scoped).map(({ definition }) => definition)).toEqual([]);
  });

  it("give every tenant table a primary key", async () => {
    const { rows } = await sql<{ table: string }>`
      select c.relname as table from pg_class c
      where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
        and not exists (select 1 from pg_index x where x.indrelid = c.oid and x.indisprimary)`.execute(db);
    expect(rows.filter((row) => classOf(row.table) === "tenant")).toEqual([]);
  });

  it("name the company on both sides of every foreign key between tenant tables", async () => {
    const { rows } = await sql<{ child: string; parent: string; name: string; pairs: Array<string> }>`
      select c.relname as child, p.relname as parent, k.conname as name,
        array(
          select ca.attname || '=' || pa.attname
          from unnest(k.conkey, k.confkey) as pair(child_column, parent_column)
          join pg_attribute ca on ca.attrelid = k.conrelid and ca.attnum = pair.child_column
          join pg_attribute pa on pa.attrelid = k.confrelid and pa.attnum = pair.parent_column
        ) as pairs
      from pg_constraint k
      join pg_class c on c.oid = k.conrelid
      join pg_class p on p.oid = k.confrelid
      where k.contype = 'f' and c.relnamespace = 'public'::regnamespace`.execute(db);
    const between = rows.filter((row) => classOf(row.child) === "tenant" && classOf(row.parent) === "tenant");
    expect(between.length).toBeGreaterThan(0);
    expect(between.filter((row) => !row.pairs.includes("company_id=company_id")).map(({ name }) => name)).toEqual([]);
    // A tenant table names its company by `company_id` -> companies (id), and may name the authentication
    // directory (replicated); nothing outside the tenant data references tenant data.
    expect(
      rows
        .filter((row) => classOf(row.child) === "tenant" && classOf(row.parent) === "company")
        .filter((row) => row.pairs.join() !== "company_id=id")
        .map(({ name }) => name),
    ).toEqual([]);
    expect(
      rows.filter((row) => classOf(row.child) !== "tenant" && classOf(row.parent) === "tenant").map(({ name }) => name),
    ).toEqual([]);
  });
});
