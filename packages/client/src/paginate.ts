/**
 * Walking every page of a list operation by cursor: the first page is asked
 * with an empty `cursor`, each next one with the previous page's
 * `pagination.next_cursor`, until it is null. Works with any list call of the
 * client, because it only needs "give me the page at this cursor". A cursor
 * page is read from where the previous one ended: rows created or deleted
 * while iterating never make the walk repeat or skip a row.
 */
import type { Result } from "./client.ts";
import { DebtCollectionError } from "./errors.ts";

/** The list envelope of every paginated operation. */
export interface Page<T> {
  readonly data: ReadonlyArray<T>;
  readonly pagination: {
    readonly total: number;
    readonly page: number;
    readonly limit: number;
    readonly pages: number;
    /** On a page read by cursor: the next page's cursor, null on the last page. */
    readonly next_cursor?: string | null;
  };
}

export interface PaginateOptions {
  /** Where to resume: a `pagination.next_cursor` of an earlier walk (default: the first page). */
  readonly cursor?: string;
}

/**
 * Every page, in order, until the one whose `pagination.next_cursor` is
 * null. `fetchPage` must pass its argument as the `cursor` query parameter;
 * a page answered without `next_cursor` (read by page number) throws a
 * TypeError rather than loop. A failed page throws `DebtCollectionError`,
 * since an iterator has no error channel; the client's retries have already
 * run by then.
 */
export async function* paginatePages<T>(
  fetchPage: (cursor: string) => Promise<Result<Page<T>>>,
  options: PaginateOptions = {},
): AsyncGenerator<Page<T>, void, undefined> {
  for (let cursor = options.cursor ?? ""; ; ) {
    const result = await fetchPage(cursor);
    if (result.error !== undefined) throw new DebtCollectionError(result.error);
    const body = result.data as Page<T>;
    const next = body.pagination.next_cursor;
    if (next === undefined) {
      throw new TypeError("paginate: the page has no pagination.next_cursor; pass the cursor given to fetchPage as the `cursor` query parameter");
    }
    yield body;
    if (next === null) return;
    cursor = next;
  }
}

/**
 * Every item of every page.
 *
 * @example
 * for await (const debt of paginate((cursor) =>
 *   api.GET("/external-api/v1/debts", { params: { query: { cursor, limit: 100 } } }),
 * )) console.log(debt.id);
 */
export async function* paginate<T>(
  fetchPage: (cursor: string) => Promise<Result<Page<T>>>,
  options: PaginateOptions = {},
): AsyncGenerator<T, void, undefined> {
  for await (const page of paginatePages(fetchPage, options)) yield* page.data;
}
