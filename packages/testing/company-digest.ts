/**
 * Everything a company holds, as one digest per table, for the tests that
 * prove a failed run wrote nothing: every table with a `company_id` (found in
 * the catalog, so a new tenant table is covered without an edit) and the
 * company's own row. `exclude` leaves out, per table, the rows a test
 * compares on their own (the snapshot or delivery under test).
 */
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database } from "@dc/db";

/** The count and an md5 of the rows' full text, of `from` (`<table> as r where ...`). */
const digestOf = (from: RawBuilder<unknown>): RawBuilder<string> =>
  sql<string>`(select count(*) || ' rows ' || coalesce(md5(string_agg(r::text, '|' order by r::text)), '-') from ${from})`;

/** The digest of `from` (`<table> as r where ...`): its row count and an md5 of the rows' full text. */
export const rowsDigest = async (db: Kysely<Database>, from: RawBuilder<unknown>): Promise<string> =>
  (await sql<{ digest: string }>`select ${digestOf(from)} as digest`.execute(db)).rows[0]!.digest;

/** The digest of each named source (`<table> as r where ...`), all read in one statement, so from one snapshot. */
export const rowsDigests = async (
  db: Kysely<Database>,
  sources: ReadonlyArray<readonly [name: string, from: RawBuilder<unknown>]>,
): Promise<Record<string, string>> => {
  const selects = sources.map(([, from], index) => sql`select ${index}::int as index, ${digestOf(from)} as digest`);
  const { rows } = await sql<{ index: number; digest: string }>`${sql.join(selects, sql` union all `)}`.execute(db);
  return Object.fromEntries(rows.map(({ index, digest }) => [sources[index]![0], digest]));
};

/** The tables of the public schema (partitioned ones included), those with a `company_id` when `withCompany`. */
export const publicTables = async (db: Kysely<Database>, { withCompany }: { withCompany: boolean }) =>
  (
    await sql<{ name: string }>`
      select c.relname as name from pg_class c
      where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and (not ${withCompany} or exists (
        select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'company_id' and not a.attisdropped))
      order by c.relname`.execute(db)
  ).rows.map(({ name }) => name);

/** Per table, the digest of company `companyId`'s rows, but those `exclude[table]` (a condition on `r`) matches. */
export const companyDigest = async (
  db: Kysely<Database>,
  companyId: number,
  exclude: Readonly<Record<string, RawBuilder<unknown>>> = {},
): Promise<Record<string, string>> => {
  const tables = await publicTables(db, { withCompany: true });
  if (tables.length < 20) throw new Error(`only ${tables.length} company tables found: is the schema migrated?`);
  return rowsDigests(db, [
    ...tables.map((name) => {
      const excluded = exclude[name];
      const others = excluded === undefined ? sql`` : sql`and not (${excluded})`;
      return [name, sql`${sql.table(name)} as r where r.company_id = ${companyId} ${others}`] as const;
    }),
    ["companies", sql`companies as r where r.id = ${companyId}`],
  ]);
};
