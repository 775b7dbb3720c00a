/**
 * One page of a filtered query and the total of the filtered set (contract
 * 4.9: filters apply before pagination), counted and fetched at once.
 */
import { type PaginationQuery, paginationOf } from "@dc/contract";
import { type SelectQueryBuilder, sql } from "kysely";

export const pageOfRows = async <DB, TB extends keyof DB, Row>(
  /** The rows to page through: tables and where clauses, no selection. */
  filtered: SelectQueryBuilder<DB, TB, object>,
  /** Selects and orders the page's rows from `filtered`. */
  select: (filtered: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, Row>,
  query: PaginationQuery,
) => {
  const [count, rows] = await Promise.all([
    filtered.select(sql<string>`count(*)`.as("total")).executeTakeFirstOrThrow(),
    select(filtered).limit(query.limit).offset((query.page - 1) * query.limit).execute(),
  ]);
  return { rows, pagination: paginationOf(query, Number((count as { total: string }).total)) };
};
