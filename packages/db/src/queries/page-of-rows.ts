/**
 * One page of a filtered query and the total of the filtered set (contract
 * 4.9: filters apply before pagination), read in one statement, so from one
 * snapshot: a write committed meanwhile is in both or in neither
 * (docs/decisions/0003). A page starts at a page number (`OFFSET`) or after
 * a key (a cursor, docs/decisions/0595). The list queries build on it; the
 * api turns the total into the contract's pagination.
 */
import { type QueryExecutorProvider, type SelectQueryBuilder, sql } from "kysely";
import {
  isKeysetRequest,
  KEY_COLUMNS,
  keyOfRow,
  keysetAfter,
  keySelections,
  type Keyset,
  type KeyValues,
  type PageRequest,
} from "./keyset.ts";

export type { PageRequest } from "./keyset.ts";

const TOTAL = "page_of_rows_total";
const IN_PAGE = "page_of_rows_in_page";

/** The rows of one page and the size of the whole filtered set. */
export interface Page<Row> {
  readonly rows: Row[];
  readonly total: number;
  /**
   * After a key: the key of the page's last row when rows follow it (what the
   * next cursor holds), undefined on the last page. By page number: undefined.
   */
  readonly next: KeyValues | undefined;
}

/**
 * Counts `filtered` and reads the page that `select` cuts from it, in the
 * order of `keyset`, as `select p.*, c.total from (count) c left join
 * lateral (page) p on true`. The page keeps its own columns, so dates,
 * numerics and bigints are parsed as when it ran alone; a page past the end
 * gives one row of nulls beside the total, which is dropped.
 *
 * The page keeps the order of its own `ORDER BY`: a left join on `true` to a
 * one-row relation can only be a nested loop, whose inner side, the page, is
 * read once in its order.
 *
 * After a key, the page reads one row more than `limit`: that row is only
 * the evidence that another page follows.
 *
 * @example
 * const { rows, total } = await pageOfRows(
 *   db,
 *   db.selectFrom("creditors").where("company_id", "=", companyId),
 *   (creditors) => creditors.select(["id", "name"]),
 *   [{ column: "id", direction: "asc", kind: "integer" }],
 *   { page: 1, limit: 20 },
 * );
 */
export const pageOfRows = async <DB, TB extends keyof DB, PageDB, PageTB extends keyof PageDB, Row extends object>(
  /** Where to run it: a Kysely instance or transaction. */
  db: QueryExecutorProvider,
  /** The rows to page through: tables and where clauses, no selection. */
  filtered: SelectQueryBuilder<DB, TB, object>,
  /** Selects the page's rows from `filtered` (joins allowed: they are not counted); the order is the keyset's. */
  select: (filtered: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<PageDB, PageTB, Row>,
  /** The list's order; its columns as the page's SQL names them. */
  keyset: Keyset,
  request: PageRequest,
): Promise<Page<Row>> => {
  const count = filtered.select(sql<number>`count(*)`.as(TOTAL));
  let page = select(filtered).select(sql<true>`true`.as(IN_PAGE));
  for (const column of keyset) page = page.orderBy(sql.ref(column.column), column.direction);
  const keyed = isKeysetRequest(request);
  if (keyed) {
    if (request.after !== undefined) page = page.where(keysetAfter(keyset, request.after));
    page = page.select(keySelections(keyset) as never).limit(request.limit + 1);
  } else {
    page = page.limit(request.limit).offset((request.page - 1) * request.limit);
  }
  const result = await sql<Record<string, unknown>>`
    select p.*, c.${sql.ref(TOTAL)} from ${count} as c left join lateral ${page} as p on true
  `.execute(db);
  const total = Number(result.rows[0]?.[TOTAL] ?? 0);
  const read = result.rows.filter((row) => row[IN_PAGE] === true);
  // One rest pattern sheds every column of ours: each pass copies every field of every row.
  const [key0, key1, key2] = KEY_COLUMNS;
  const rows = (keyed ? read.slice(0, request.limit) : read).map(
    ({ [TOTAL]: _total, [IN_PAGE]: _inPage, [key0]: _key0, [key1]: _key1, [key2]: _key2, ...fields }) => fields as Row,
  );
  const last = keyed && read.length > request.limit ? read[request.limit - 1] : undefined;
  return { rows, total, next: last === undefined ? undefined : keyOfRow(keyset, last) };
};
