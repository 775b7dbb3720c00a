/**
 * Walking every page of a list operation (contract 4.9: `page` from 1,
 * `pagination.pages` pages in all). Works with any list call of the client
 * because it only needs "give me page N".
 */
import type { Result } from "./client.ts";
import { DebtCollectionError } from "./errors.ts";

/** The list envelope of every paginated operation. */
export interface Page<T> {
  readonly data: ReadonlyArray<T>;
  readonly pagination: { readonly total: number; readonly page: number; readonly limit: number; readonly pages: number };
}

export interface PaginateOptions {
  /** Page to start from (default 1). */
  readonly firstPage?: number;
}

/**
 * Every page, in order, until `pagination.pages` (or an empty page). A failed
 * page throws `DebtCollectionError`, since an iterator has no error channel;
 * the client's retries have already run by then.
 *
 * Pages are read one at a time, so rows created or deleted while iterating
 * can shift between pages (newest-first lists): sort or filter by creation
 * time (`created_before`) for a stable walk.
 */
export async function* paginatePages<T>(
  fetchPage: (page: number) => Promise<Result<Page<T>>>,
  options: PaginateOptions = {},
): AsyncGenerator<Page<T>, void, undefined> {
  for (let page = options.firstPage ?? 1; ; page++) {
    const result = await fetchPage(page);
    if (result.error !== undefined) throw new DebtCollectionError(result.error);
    const body = result.data as Page<T>;
    yield body;
    if (body.data.length === 0 || page >= body.pagination.pages) return;
  }
}

/**
 * Every item of every page.
 *
 * @example
 * for await (const debt of paginate((page) =>
 *   api.GET("/external-api/v1/debts", { params: { query: { page, limit: 100 } } }),
 * )) console.log(debt.id);
 */
export async function* paginate<T>(
  fetchPage: (page: number) => Promise<Result<Page<T>>>,
  options: PaginateOptions = {},
): AsyncGenerator<T, void, undefined> {
  for await (const page of paginatePages(fetchPage, options)) yield* page.data;
}
