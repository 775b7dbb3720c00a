/**
 * One page of a company's debts (all, one creditor's or one debtor's) with
 * the filters of docs/decisions/0109, the filtered total and whether the
 * scope exists, in a single statement (docs/decisions/0100):
 *
 * - the page is chosen on the list index alone (ids only, newest first), then
 *   only those rows are read and enriched: a deep page does not fetch the rows
 *   it skips; a page after a key (a cursor, docs/decisions/0595) starts with
 *   a range scan of that index at the key, whatever its depth;
 * - the total comes from `creditor_debt_stats` when the filters are at most a
 *   status set and a currency, otherwise from a count on the same predicates.
 */
import { type Kysely, type RawBuilder, sql } from "kysely";
import { PREPARED } from "../../connection.ts";
import type { Database } from "../../schema.ts";
import { keysetAfter, keysetOrder, type Keyset, type KeyValues } from "../keyset.ts";
import { type DebtView, debtViewsOf, type RawDebtView, toDebtView } from "./debt-views.ts";
import { minorFactorOf } from "../minor-factor.ts";

export type DebtScope =
  | { readonly kind: "company" }
  | { readonly kind: "creditor"; readonly creditorId: number }
  | { readonly kind: "debtor"; readonly debtorId: number };

export interface DebtFilters {
  readonly statuses?: ReadonlyArray<string> | undefined;
  readonly currency?: string | undefined;
  /** Major units of each debt's currency, inclusive. */
  readonly amountMin?: number | undefined;
  readonly amountMax?: number | undefined;
  /** Inclusive lower bound of created_at: an instant as text PostgreSQL reads exactly (microseconds at most). */
  readonly createdAfter?: string | undefined;
  /** Exclusive upper bound of created_at, the same form. */
  readonly createdBefore?: string | undefined;
  /** Case-insensitive substring of internal_id or amount_text. */
  readonly search?: string | undefined;
}

/** A page by `offset`, or after a key (`after`, undefined for the first page of a cursor walk). */
export type DebtPageRequest = {
  readonly companyId: number;
  readonly scope: DebtScope;
  readonly filters: DebtFilters;
  readonly limit: number;
} & ({ readonly offset: number } | { readonly after: KeyValues | undefined });

export interface DebtPage {
  /** False when the scope's creditor or debtor is not the company's. */
  readonly scopeFound: boolean;
  readonly total: number;
  /** True when the company is a collection agency (debts then show `company`). */
  readonly collectionAgency: boolean;
  readonly rows: ReadonlyArray<DebtView>;
  /** After a key: the key of the last row when rows follow it; undefined on the last page and by offset. */
  readonly next: KeyValues | undefined;
}

/**
 * Newest first. The list indexes `(company_id, created_at desc, id desc)`,
 * `(company_id, creditor_id, ...)`, `(company_id, status, ...)` and
 * `(company_id, debtor_id, ...)` serve a page after a key.
 */
export const debtOrder: Keyset = [
  { column: "d.created_at", direction: "desc", kind: "instant" },
  { column: "d.id", direction: "desc", kind: "integer" },
];

/** 10^exponent of each row's currency, as SQL (exact integer arithmetic on numeric). */
const minorFactor = minorFactorOf(sql.ref("d.currency"));

/** Major units compared exactly: the number's shortest decimal text becomes a numeric. */
const majorAsNumeric = (value: number) => sql`${String(value)}::numeric`;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

const predicates = (companyId: number, scope: DebtScope, filters: DebtFilters): RawBuilder<unknown> => {
  const parts: RawBuilder<unknown>[] = [sql`d.company_id = ${companyId}`];
  if (scope.kind === "creditor") parts.push(sql`d.creditor_id = ${scope.creditorId}`);
  if (scope.kind === "debtor") parts.push(sql`d.debtor_id = ${scope.debtorId}`);
  if (filters.statuses !== undefined) parts.push(sql`d.status = any(${filters.statuses}::text[])`);
  if (filters.currency !== undefined) parts.push(sql`d.currency = ${filters.currency}`);
  if (filters.amountMin !== undefined)
    parts.push(sql`d.amount_minor >= ${majorAsNumeric(filters.amountMin)} * ${minorFactor}`);
  if (filters.amountMax !== undefined)
    parts.push(sql`d.amount_minor <= ${majorAsNumeric(filters.amountMax)} * ${minorFactor}`);
  if (filters.createdAfter !== undefined) parts.push(sql`d.created_at >= ${filters.createdAfter}::timestamptz`);
  if (filters.createdBefore !== undefined) parts.push(sql`d.created_at < ${filters.createdBefore}::timestamptz`);
  if (filters.search !== undefined) {
    const pattern = `%${escapeLike(filters.search)}%`;
    parts.push(sql`(d.internal_id ilike ${pattern} or d.amount_text ilike ${pattern})`);
  }
  return sql.join(parts, sql` and `);
};

const countersAnswer = (scope: DebtScope, filters: DebtFilters) =>
  scope.kind !== "debtor" &&
  filters.amountMin === undefined &&
  filters.amountMax === undefined &&
  filters.createdAfter === undefined &&
  filters.createdBefore === undefined &&
  filters.search === undefined;

const totalQuery = (companyId: number, scope: DebtScope, filters: DebtFilters, where: RawBuilder<unknown>) => {
  if (!countersAnswer(scope, filters)) return sql`select count(*)::int8 from debts d where ${where}`;
  const parts: RawBuilder<unknown>[] = [sql`s.company_id = ${companyId}`];
  if (scope.kind === "creditor") parts.push(sql`s.creditor_id = ${scope.creditorId}`);
  if (filters.statuses !== undefined) parts.push(sql`s.status = any(${filters.statuses}::text[])`);
  if (filters.currency !== undefined) parts.push(sql`s.currency = ${filters.currency}`);
  return sql`select coalesce(sum(s.debt_count), 0)::int8 from creditor_debt_stats s where ${sql.join(parts, sql` and `)}`;
};

const scopeFoundQuery = (companyId: number, scope: DebtScope) => {
  switch (scope.kind) {
    case "company":
      return sql`true`;
    case "creditor":
      return sql`exists (select 1 from creditors where id = ${scope.creditorId} and company_id = ${companyId})`;
    case "debtor":
      return sql`exists (select 1 from debtors where id = ${scope.debtorId} and company_id = ${companyId})`;
  }
};

type Row = Partial<RawDebtView> & {
  scope_found: boolean;
  total: number;
  collection_agency: boolean | null;
  /** After a key: `<created_at in microseconds> <id>` of the page's last row when rows follow it. */
  next_key?: string | null;
};

/** Reads one page; see the module comment for how it stays fast on deep pages and large creditors. */
export const listDebtPage = async (db: Kysely<Database>, request: DebtPageRequest): Promise<DebtPage> => {
  const { companyId, scope, filters } = request;
  const where = predicates(companyId, scope, filters);
  const meta = sql`
    ${scopeFoundQuery(companyId, scope)} as scope_found,
    (${totalQuery(companyId, scope, filters, where)}) as total,
    (select is_collection_agency from companies where id = ${companyId}) as collection_agency
  `;
  // The api runs this statement with a generic plan (docs/decisions/0017),
  // planned without the parameters' values. The page's ids travel as an
  // array because `unnest` of an array the planner cannot see counts as 10
  // rows, a page's size, whereas a LIMIT parameter counts as a tenth of the
  // creditor's debts: on a large creditor that estimate would pick a plan
  // that reads many debts to enrich a page of 20.
  const { rows } =
    "after" in request
      ? // After a key, the ids of one row more than the page are chosen: the last only shows that another page
        // follows, and is not read. The key of the page's last row comes back once, beside the total.
        await sql<Row>`${sql.raw(PREPARED)}
          select meta.scope_found, meta.total, meta.collection_agency, meta.next_key, v.*
          from (
            select ${meta}, page.ids,
              case when cardinality(page.ids) > ${request.limit} then (
                select (extract(epoch from n.created_at) * 1000000)::int8 || ' ' || n.id
                from debts n where n.company_id = ${companyId} and n.id = page.ids[${request.limit}]
              ) end as next_key
            from (
              select array(
                select d.id from debts d
                where ${where}${request.after === undefined ? sql`` : sql` and ${keysetAfter(debtOrder, request.after)}`}
                order by ${keysetOrder(debtOrder)}
                limit ${request.limit + 1}
              ) as ids
              offset 0
            ) as page
            -- Fences (offset 0): inlined, the ids would be read once per use, and the last key once per row.
            offset 0
          ) as meta
          left join lateral (${debtViewsOf(companyId, sql`select unnest(meta.ids[1:${request.limit}])`)}) as v on true
          order by v.created_at desc, v.id desc
        `.execute(db)
      : await sql<Row>`${sql.raw(PREPARED)}
          select meta.*, v.*
          from (select ${meta}) as meta
          left join lateral (${debtViewsOf(
            companyId,
            sql`
              select unnest(array(
                select d.id from debts d where ${where}
                order by ${keysetOrder(debtOrder)}
                limit ${request.limit} offset ${request.offset}
              )) as id
            `,
          )}) as v on true
          order by v.created_at desc, v.id desc
        `.execute(db);
  const first = rows[0];
  const nextKey = first?.next_key ?? undefined;
  return {
    scopeFound: first?.scope_found ?? false,
    total: Number(first?.total ?? 0),
    collectionAgency: first?.collection_agency ?? false,
    rows: rows.filter((row) => row.id !== null && row.id !== undefined).map((row) => toDebtView(row as RawDebtView)),
    next: nextKey === undefined ? undefined : nextKey.split(" ").map(Number),
  };
};
