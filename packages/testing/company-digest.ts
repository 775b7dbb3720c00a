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
export const rowsDigest = async (db: Kysely<Database>, from: RawBuilder<unknown>): Promise<string> =>
  (
    await sql<{ digest: string }>`
      select count(*) || ' rows ' || coalesce(md5(string_agg(r::text, '|' order by r::text)), '-') as digest
      from ${from}`.execute(db)
  ).rows[0]!.digest;

/** Per table, the digest of company `companyId`'s rows, but those `exclude[table]` (a condition on `r`) matches. */
export const companyDigest = async (
  db: Kysely<Database>,
  companyId: number,
  exclude: Readonly<Record<string, RawBuilder<unknown>>> = {},
): Promise<Record<string, string>> => {
  const tables = (
    await sql<{ name: string }>`
      select c.table_name as name from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = 'public' and c.column_name = 'company_id' and t.table_type = 'BASE TABLE'
      order by c.table_name`.execute(db)
  ).rows.map(({ name }) => name);
  if (tables.length < 20) throw new Error(`only ${tables.length} company tables found: is the schema migrated?`);
  const entries = await Promise.all(
    tables.map(async (name) => {
      const excluded = exclude[name];
      const others = excluded === undefined ? sql`` : sql`and not (${excluded})`;
      return [
        name,
        await rowsDigest(db, sql`${sql.table(name)} as r where r.company_id = ${companyId} ${others}`),
      ] as const;
    }),
  );
  return {
    ...Object.fromEntries(entries),
    companies: await rowsDigest(db, sql`companies as r where r.id = ${companyId}`),
  };
};
