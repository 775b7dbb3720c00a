/**
 * `create index concurrently` for a migration that runs outside a
 * transaction (`withoutTransaction`, docs/decisions/0028), safe to
 * run again. A concurrent build records the index first (INVALID), then
 * builds it while writes go on, and on failure (a lock timeout while it
 * waits for older transactions, a cancel, a lost connection) leaves it
 * INVALID: useless to queries, still updated by every write. Run again, this
 * drops such an index (`drop index concurrently`) and builds it anew; a valid
 * index of that name is left as it is.
 */
import { type Kysely, sql } from "kysely";

export interface ConcurrentIndex {
  readonly name: string;
  readonly table: string;
  readonly columns: ReadonlyArray<string>;
  /** A partial index's predicate, as SQL text written by the migration (never from input). */
  readonly where?: string;
}

export const createIndexConcurrently = async <DB>(db: Kysely<DB>, index: ConcurrentIndex): Promise<void> => {
  const { rows } = await sql<{ valid: boolean }>`
    select x.indisvalid as valid
    from pg_index x join pg_class i on i.oid = x.indexrelid
    where i.relname = ${index.name} and i.relnamespace = current_schema()::regnamespace`.execute(db);
  if (rows[0]?.valid === true) return;
  if (rows[0] !== undefined) await sql`drop index concurrently ${sql.id(index.name)}`.execute(db);
  await sql`create index concurrently ${sql.id(index.name)} on ${sql.table(index.table)} (${sql.join(
    index.columns.map((column) => sql.id(column)),
  )})${index.where === undefined ? sql`` : sql` where ${sql.raw(index.where)}`}`.execute(db);
};
