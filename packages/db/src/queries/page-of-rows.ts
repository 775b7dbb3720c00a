/**
 * One page of a filtered query and the total of the filtered set (contract
 * 4.9: filters apply before pagination), read in one statement, so from one
 * snapshot: a write committed meanwhile is in both or in neither
 * (docs/decisions/0003). The list queries build on it; the api turns the
 * total into the contract's pagination.
 */
import { type QueryExecutorProvider, type SelectQueryBuilder, sql } from "kysely";

const TOTAL = "page_of_rows_total";
const IN_PAGE = "page_of_rows_in_page";

/** Which page of how many rows: `page` counts from 1. */
export interface PageRequest {
  readonly page: number;
  readonly limit: number;
}

/** The rows of one page and the size of the whole filtered set. */
export interface Page<Row> {
  readonly rows: Row[];
  readonly total: number;
}

/**
 * Counts `filtered` and reads the page that `select` cuts from it, as
 * `select p.*, c.total from (count) c left join lateral (page) p on true`.
 * The page keeps its own columns, so dates, numerics and bigints are parsed
 * as when it ran alone; a page past the end gives one row of nulls beside
 * the total, which is dropped.
 *
 * The page keeps the order of its own `ORDER BY`: a left join on `true` to a
 * one-row relation can only be a nested loop, whose inner side, the page, is
 * read once in its order.
 *
 * @example
 * const { rows, total } = await pageOfRows(
 *   db,
 *   db.selectFrom("creditors").where("company_id", "=", companyId),
 *   (creditors) => creditors.select(["id", "name"]).orderBy("id"),
 *   { page: 1, limit: 20 },
 * );
 */
export const pageOfRows = async <DB, TB extends keyof DB, PageDB, PageTB extends keyof PageDB, Row extends object>(
  /** Where to run it: a Kysely instance or transaction. */
  db: QueryExecutorProvider,
  /** The rows to page through: tables and where clauses, no selection. */
  filtered: SelectQueryBuilder<DB, TB, object>,
  /** Selects and orders the page's rows from `filtered` (joins allowed: they are not counted). */
  select: (filtered: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<PageDB, PageTB, Row>,
  request: PageRequest,
): Promise<Page<Row>> => {
  const count = filtered.select(sql<number>`count(*)`.as(TOTAL));
  const page = select(filtered)
    .select(sql<true>`true`.as(IN_PAGE))
    .limit(request.limit)
    .offset((request.page - 1) * request.limit);
  const result = await sql<Record<string, unknown>>`
    select p.*, c.${sql.ref(TOTAL)} from ${count} as c left join lateral ${page} as p on true
  `.execute(db);
  const total = Number(result.rows[0]?.[TOTAL] ?? 0);
  const rows = result.rows
    .filter((row) => row[IN_PAGE] === true)
    .map(({ [TOTAL]: _total, [IN_PAGE]: _inPage, ...fields }) => fields as Row);
  return { rows, total };
};
