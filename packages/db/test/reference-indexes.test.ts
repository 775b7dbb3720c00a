/**
 * Every reference a delete (or key change) of a parent must follow has an
 * index on the child that leads with the referencing columns, read from the
 * catalog of the migrated database: the foreign keys in `pg_constraint` and
 * the references checked per statement by triggers (`statementReferences`,
 * as the migrations declare them). Without one, deleting a parent reads the
 * whole child table: a client's delete scanned every company's payments and
 * snapshots until migration 0021.
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { statementReferences } from "../src/statement-references.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { db } = await useTestDatabase();

interface Reference {
  readonly child: string;
  readonly columns: ReadonlyArray<string>;
  readonly parent: string;
}

interface Index {
  readonly table: string;
  readonly index: string;
  /** Key columns in order; null where the key is an expression. */
  readonly keys: ReadonlyArray<string | null>;
  readonly predicate: string | null;
}

/**
 * A partial index serves a reference only if every row the parent's
 * lookup can find is in it: its predicate may only require referencing
 * columns to be non-null (the lookup's `=` never matches a null), e.g.
 * `where installment_id is not null`.
 */
const predicateImplied = (predicate: string | null, columns: ReadonlyArray<string>): boolean =>
  predicate === null ||
  predicate
    .replace(/^\((.*)\)$/, "$1")
    .split(" AND ")
    .every((conjunct) => {
      const column = /^\(?(\w+) IS NOT NULL\)?$/.exec(conjunct)?.[1];
      return column !== undefined && columns.includes(column);
    });

/** The referencing columns, in any order, are the index's leading key columns. */
const serves = (index: Index, { child, columns }: Reference): boolean =>
  index.table === child &&
  index.keys.length >= columns.length &&
  columns.every((column) => index.keys.slice(0, columns.length).includes(column)) &&
  predicateImplied(index.predicate, columns);

const describeReference = ({ child, columns, parent }: Reference) => `${child} (${columns.join(", ")}) -> ${parent}`;

describe("the references a parent's delete follows", () => {
  it("are declared for every table whose id the per-statement checks fix, and for no other", async () => {
    // parent_key_is_fixed guards the id of every parent a per-statement check names (0010, 0011, 0013, 0016).
    const { rows } = await sql<{ table: string }>`
      select distinct c.relname as table from pg_trigger g join pg_class c on c.oid = g.tgrelid
      where g.tgfoid = 'parent_key_is_fixed'::regproc order by 1`.execute(db);
    expect([...new Set(statementReferences.map(({ parent }) => parent))].sort()).toEqual(
      rows.map(({ table }) => table),
    );
  });

  it("are declared for every table whose inserts a per-statement check reads, and for no other", async () => {
    // A check runs after each inserting statement, over its transition table, and raises SQLSTATE 23503.
    const { rows } = await sql<{ table: string }>`
      select distinct c.relname as table from pg_trigger g
      join pg_class c on c.oid = g.tgrelid
      join pg_proc f on f.oid = g.tgfoid
      where g.tgnewtable is not null and not g.tgisinternal and f.prosrc like '%foreign_key_violation%'
      order by 1`.execute(db);
    expect([...new Set(statementReferences.map(({ child }) => child))].sort()).toEqual(rows.map(({ table }) => table));
  });

  it("count a partial index only when the reference implies its predicate", () => {
    const plans = ["company_id", "debt_id"];
    expect(predicateImplied(null, plans)).toBe(true);
    expect(predicateImplied("(installment_id IS NOT NULL)", ["company_id", "installment_id"])).toBe(true);
    expect(predicateImplied("((a IS NOT NULL) AND (b IS NOT NULL))", ["a", "b"])).toBe(true);
    // payment_plans_one_active_key holds the active plans only: a debt's delete must find the others too.
    expect(predicateImplied("(status = 'active'::text)", plans)).toBe(false);
    expect(predicateImplied("(debt_id IS NULL)", plans)).toBe(false);
    expect(predicateImplied("(followup_id IS NOT NULL)", plans)).toBe(false);
  });

  it("each have an index on the child leading with the referencing columns", async () => {
    const { rows: foreignKeys } = await sql<Reference>`
      select c.relname as child, p.relname as parent,
        array(
          select a.attname::text from unnest(k.conkey) with ordinality as key(attnum, position)
          join pg_attribute a on a.attrelid = k.conrelid and a.attnum = key.attnum
          order by key.position
        ) as columns
      from pg_constraint k
      join pg_class c on c.oid = k.conrelid
      join pg_class p on p.oid = k.confrelid
      where k.contype = 'f' and c.relnamespace = 'public'::regnamespace`.execute(db);
    const { rows: indexes } = await sql<Index>`
      select t.relname as table, i.relname as index,
        array(
          select a.attname::text from unnest(x.indkey::int2[]) with ordinality as key(attnum, position)
          left join pg_attribute a on a.attrelid = x.indrelid and a.attnum = key.attnum
          where key.position <= x.indnkeyatts
          order by key.position
        ) as keys,
        pg_get_expr(x.indpred, x.indrelid) as predicate
      from pg_index x
      join pg_class i on i.oid = x.indexrelid
      join pg_class t on t.oid = x.indrelid
      where t.relnamespace = 'public'::regnamespace and x.indisvalid`.execute(db);
    expect(foreignKeys.length).toBeGreaterThan(0);
    const references = [...foreignKeys, ...statementReferences];
    const unserved = references.filter((reference) => !indexes.some((index) => serves(index, reference)));
    expect(unserved.map(describeReference).sort()).toEqual([]);
  });
});
