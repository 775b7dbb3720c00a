/**
 * A fingerprint of everything companies hold in PostgreSQL, to prove a
 * refused request wrote nothing: for every table with a `company_id` column
 * (found in the catalog, so a new tenant table is covered without an edit),
 * the row count, the latest `updated_at` where there is one, and a digest of
 * the rows' full text; plus the company rows. `jobCount` is the job queue's
 * size, which no company owns.
 */
import type { Database } from "@dc/db";
import { type Kysely, sql } from "kysely";

export type Fingerprint = Readonly<Record<string, string>>;

const tenantTables = async (db: Kysely<Database>) =>
  (
    await sql<{ table_name: string; has_updated_at: boolean }>`
      select c.table_name,
        exists (select 1 from information_schema.columns u
                where u.table_schema = 'public' and u.table_name = c.table_name and u.column_name = 'updated_at') as has_updated_at
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
      where c.table_schema = 'public' and c.column_name = 'company_id'
      order by c.table_name`.execute(db)
  ).rows;

/**
 * The fingerprint of `companyIds`' rows, one entry per table.
 *
 * @example expect(await fingerprint(db, [a, b])).toEqual(before)
 */
export const fingerprint = async (db: Kysely<Database>, companyIds: ReadonlyArray<number>): Promise<Fingerprint> => {
  const tables = await tenantTables(db);
  if (tables.length < 10) throw new Error(`only ${tables.length} tenant tables found: is the schema migrated?`);
  const entries = await Promise.all(
    tables.map(async ({ table_name, has_updated_at }) => {
      const latest = has_updated_at ? sql`max(r.updated_at)::text` : sql`null`;
      const { rows } = await sql<{ n: number; latest: string | null; digest: string | null }>`
        select count(*)::int as n, ${latest} as latest, md5(string_agg(r::text, '|' order by r::text)) as digest
        from ${sql.table(table_name)} as r where r.company_id = any(${[...companyIds]}::int8[])`.execute(db);
      const row = rows[0]!;
      return [table_name, `${row.n} rows, updated ${row.latest ?? "-"}, ${row.digest ?? "-"}`] as const;
    }),
  );
  const companies = await sql<{ digest: string | null }>`
    select md5(string_agg(c::text, '|' order by c.id)) as digest from companies c where c.id = any(${[...companyIds]}::int8[])`.execute(
    db,
  );
  return { ...Object.fromEntries(entries), companies: companies.rows[0]?.digest ?? "-" };
};

/** The number of graphile-worker jobs queued (a refused request must enqueue none). */
export const jobCount = async (db: Kysely<Database>): Promise<number> =>
  (await sql<{ n: number }>`select count(*)::int as n from graphile_worker._private_jobs`.execute(db)).rows[0]?.n ?? 0;
