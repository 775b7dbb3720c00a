/**
 * The rules that span the rows of a stored snapshot (contract 4.2 rule 7:
 * one effective identity per row, one row per invoice reference, one
 * stream), checked by PostgreSQL over the identity arrays each chunk was
 * stored with (migration 0009), in one statement. Only the first errors and
 * their count leave the database: the memory of the caller does not grow
 * with the snapshot (docs/decisions/0690).
 */
import { Snapshot } from "@dc/domain";
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { textArray } from "../array-literals.ts";
import { MAX_REPORTED, type SnapshotRowKey } from "./mark-snapshot.ts";

/** The first errors of the rules across rows, and how many there are in all. */
export interface CrossRowErrors {
  /** At most the `limit` asked for, by row index and, on one row, in the order of `Snapshot.acrossRowsRules`. */
  readonly errors: ReadonlyArray<Snapshot.RowError>;
  readonly count: number;
}

interface FactRow {
  readonly count: number;
  readonly purged: number;
  readonly row_index: number | null;
  readonly rule: string | null;
  readonly first_row_index: number | null;
  readonly value: string | null;
  readonly account: boolean | null;
}

const factOf = (row: FactRow): Snapshot.AcrossRowsFact => {
  const { row_index: rowIndex, first_row_index: firstRowIndex, value, account } = row;
  const incomplete = () => new Error(`an incomplete ${String(row.rule)} fact on row ${String(rowIndex)}`);
  if (rowIndex === null) throw incomplete();
  if (row.rule === "missing_identity") return { rule: "missing_identity", rowIndex };
  if (firstRowIndex === null) throw incomplete();
  switch (row.rule) {
    case "stream":
      if (account === null) throw incomplete();
      return { rule: "stream", rowIndex, firstRowIndex, firstStream: account ? "account" : "invoice" };
    case "duplicate_identity":
      if (account === null || value === null) throw incomplete();
      return {
        rule: "duplicate_identity",
        rowIndex,
        firstRowIndex,
        identity: { kind: account ? "internal_id" : "invoice_reference", value },
      };
    case "duplicate_invoice":
      if (value === null) throw incomplete();
      return { rule: "duplicate_invoice", rowIndex, firstRowIndex, invoiceReference: value };
    default:
      throw new Error(`an unknown cross-row rule ${String(row.rule)}`);
  }
};

/**
 * The statement. A row's snapshot-wide index is its chunk's first row (the
 * earlier chunks' `row_count`s) plus its position in the chunk's arrays.
 * Duplicates are found by sorting and grouping: a hash aggregate over a
 * million distinct identities took twice as long as their sort, and the
 * planner, which guesses 10 elements per `unnest`, would pick it; grouping
 * an ordered subquery makes it group the sorted rows instead. The rows are
 * read a third time (`suspects`) only when a rule is broken: by a duplicate
 * group, or, seen in the arrays without unnesting them
 * (`array_position(..., null)`), by a row of the other stream or one with
 * neither key. Identities compare as bytes (`collate "C"`), as the domain's
 * strings do, and sort fastest so.
 */
const crossRowFacts = (db: Kysely<Database>, snapshot: SnapshotRowKey, limit: number) =>
  sql<FactRow>`
with chunk as (
  select internal_ids, invoice_references,
    coalesce(sum(row_count) over (order by chunk_index rows between unbounded preceding and 1 preceding), 0) as first_row
  from snapshot_chunks where company_id = ${snapshot.companyId} and snapshot_id = ${snapshot.id}
),
first_identified as (
  select (
      select coalesce(sum(earlier.row_count), 0) from snapshot_chunks earlier
      where earlier.company_id = c.company_id and earlier.snapshot_id = c.snapshot_id and earlier.chunk_index < c.chunk_index
    ) + f.n - 1 as row_index,
    f.account
  from snapshot_chunks c cross join lateral (
    select r.n, r.internal_id is not null as account
    from unnest(c.internal_ids, c.invoice_references) with ordinality as r(internal_id, invoice_reference, n)
    where r.internal_id is not null or r.invoice_reference is not null
    order by r.n limit 1
  ) f
  where c.company_id = ${snapshot.companyId} and c.snapshot_id = ${snapshot.id}
  order by c.chunk_index limit 1
),
account_duplicates as (
  select internal_id, min(row_index) as first_row
  from (
    select (chunk.first_row + r.n - 1)::int as row_index, r.internal_id collate "C" as internal_id
    from chunk, unnest(chunk.internal_ids) with ordinality as r(internal_id, n)
    where r.internal_id is not null
    order by 2
  ) account_row
  group by internal_id having count(*) > 1
),
invoice_duplicates as (
  select invoice_reference, min(row_index) as first_row,
    min(row_index) filter (where not account) as first_identity_row
  from (
    select (chunk.first_row + r.n - 1)::int as row_index, r.internal_id is not null as account,
      r.invoice_reference collate "C" as invoice_reference
    from chunk, unnest(chunk.internal_ids, chunk.invoice_references) with ordinality as r(internal_id, invoice_reference, n)
    where r.invoice_reference is not null
      and exists (select from chunk where cardinality(array_positions(invoice_references, null)) < cardinality(invoice_references))
    order by 3
  ) invoice_row
  group by invoice_reference having count(*) > 1
),
suspects as (
  select (chunk.first_row + r.n - 1)::int as row_index, r.internal_id collate "C" as internal_id,
    r.invoice_reference collate "C" as invoice_reference
  from chunk, unnest(chunk.internal_ids, chunk.invoice_references) with ordinality as r(internal_id, invoice_reference, n)
  where exists (select from account_duplicates) or exists (select from invoice_duplicates)
    or not exists (select from first_identified)
    or exists (
      select from chunk, first_identified f
      where case when f.account then array_position(chunk.internal_ids, null) is not null
        else array_position(chunk.invoice_references, null) is not null
          or cardinality(array_positions(chunk.internal_ids, null)) < cardinality(chunk.internal_ids) end
    )
),
flagged as (
  select s.row_index, s.internal_id, s.invoice_reference,
    a.first_row as first_account_row, i.first_row as first_invoice_row, i.first_identity_row
  from suspects s
  left join account_duplicates a on a.internal_id = s.internal_id
  left join invoice_duplicates i on i.invoice_reference = s.invoice_reference
  where (s.internal_id is null and s.invoice_reference is null)
    or (s.internal_id is not null) <> (select account from first_identified)
    or s.row_index > a.first_row or s.row_index > i.first_row
),
facts as (
  select s.row_index, x.rule, x.first_row_index, x.value, x.account
  from flagged s cross join lateral (values
    ('missing_identity', null::int, null::text, null::boolean, s.internal_id is null and s.invoice_reference is null),
    ('stream', (select row_index from first_identified), null, (select account from first_identified),
      (s.internal_id is not null or s.invoice_reference is not null)
        and (s.internal_id is not null) <> (select account from first_identified)),
    ('duplicate_identity', case when s.internal_id is not null then s.first_account_row else s.first_identity_row end,
      coalesce(s.internal_id, s.invoice_reference), s.internal_id is not null,
      case when s.internal_id is not null then s.row_index > s.first_account_row else s.row_index > s.first_identity_row end),
    ('duplicate_invoice', s.first_invoice_row, s.invoice_reference, null,
      s.row_index > s.first_invoice_row and (s.internal_id is not null or s.row_index = s.first_identity_row))
  ) x(rule, first_row_index, value, account, applies)
  where x.applies
)
select t.count, t.purged, f.row_index, f.rule, f.first_row_index, f.value, f.account
from (
  select (select count(*) from facts)::int as count,
    (select count(*) from chunk where internal_ids is null or invoice_references is null)::int as purged
) t left join lateral (
  select * from facts order by row_index, array_position(${textArray(Snapshot.acrossRowsRules)}::text[], rule) limit ${limit}
) f on true
`.execute(db);

/**
 * Every error `Snapshot.checkAcrossRows` would report for the stored rows of
 * a snapshot (and "internal_id or invoice_reference is required" for a
 * stored row with neither key), computed by PostgreSQL in one statement:
 * the first `limit` of them, in row order, and their total count. `db` may
 * be a transaction. Only an unsettled snapshot is asked for: the retention
 * purge clears the arrays of settled ones (docs/decisions/0021), and a
 * purged chunk throws.
 *
 * Call it with the planner's defaults, not under `withWholeCampaignJoins`:
 * with nested loops disabled, its unnests (which only a nested loop can
 * join) are priced past `jit_above_cost`, and compiling the statement
 * doubles its time (1.5 s instead of 0.7 s for a million rows).
 *
 * @example
 * const { errors, count } = await findCrossRowErrors(trx, { companyId, id }, MAX_REPORTED);
 */
export const findCrossRowErrors = async (
  db: Kysely<Database>,
  snapshot: SnapshotRowKey,
  limit: number = MAX_REPORTED,
): Promise<CrossRowErrors> => {
  const { rows } = await crossRowFacts(db, snapshot, limit);
  const head = rows[0];
  if (head !== undefined && head.purged > 0) {
    throw new Error(`snapshot ${snapshot.id} has a purged chunk: its rows are no longer stored`);
  }
  return {
    errors: rows.flatMap((row) => (row.rule === null ? [] : [Snapshot.acrossRowsError(factOf(row))])),
    count: head?.count ?? 0,
  };
};
