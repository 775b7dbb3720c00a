/**
 * How a list request says where its page starts, and the `pagination` of its
 * answer (docs/decisions/0595). By page number (no `cursor`) it is contract
 * 4.9 exactly. By cursor, the page starts after the key the cursor holds,
 * and the answer adds `next_cursor`.
 *
 * A cursor seals `[rows served before its page, ...key of the row it
 * follows]` (`makeCursorBox`, with `ID_ENCRYPTION_KEY`), bound to the
 * company, the list and its filters: a cursor replayed under any other
 * binding, or altered, opens to nothing, and all of them get the same 400.
 */
import { type PaginationQuery, paginationOf } from "@dc/contract";
import { type CursorBox, makeCursorBox } from "@dc/crypto";
import { isKeyOf, type Keyset, type KeyValues, type PageRequest } from "@dc/db";
import type { AppServices } from "../services.ts";
import { ValidationFailed } from "./api-error.ts";

/** The message of every refused cursor: it says nothing of why (whose it was, which filter differs). */
export const INVALID_CURSOR = "is not a cursor of this list with these filters";
export const CURSOR_WITH_PAGE = "must not be given with cursor, which says where its page starts";

const boxes = new WeakMap<Uint8Array, CursorBox>();

const boxOf = (secret: Uint8Array): CursorBox => {
  let box = boxes.get(secret);
  if (box === undefined) {
    box = makeCursorBox(secret);
    boxes.set(secret, box);
  }
  return box;
};

/** What a cursor is bound to: the company, the list (one name per handler, shared by aliases) and its filters. */
export interface ListBinding {
  readonly companyId: number;
  readonly list: string;
  /**
   * The decoded filters and path parameters that choose the rows, as JSON
   * (undefined members omitted), built by the list's handler in a fixed order.
   */
  readonly filters: unknown;
  /** The list's order, which the cursor's key must fit. */
  readonly keyset: Keyset;
}

/** The page read, as its `pagination` needs it. */
export interface PageOutcome {
  readonly total: number;
  readonly rows: ReadonlyArray<unknown>;
  /** The key of the page's last row when rows follow it (a keyed read). */
  readonly next: KeyValues | undefined;
}

export interface Pagination {
  readonly total: number;
  readonly page: number;
  readonly limit: number;
  readonly pages: number;
  readonly next_cursor?: string | null;
}

export interface ListWalk {
  /** Where the list's query starts its page. */
  readonly request: PageRequest;
  readonly pagination: (outcome: PageOutcome) => Pagination;
}

// The filters' JSON in the order the handler builds them: one list's handler always builds them alike.
const bindingText = (binding: ListBinding): string =>
  `page-cursor v1\ncompany ${binding.companyId}\nlist ${binding.list}\nfilters ${JSON.stringify(binding.filters)}`;

/** The rows served before the page and the key it follows, or undefined for anything not sealed for `bound`. */
const openCursor = (box: CursorBox, bound: string, keyset: Keyset, cursor: string): { served: number; after: KeyValues } | undefined => {
  const payload = box.open(bound, cursor);
  if (payload === undefined) return undefined;
  let values: unknown;
  try {
    values = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (!Array.isArray(values)) return undefined;
  const [served, ...after] = values as unknown[];
  if (typeof served !== "number" || !Number.isSafeInteger(served) || served < 0 || !isKeyOf(keyset, after)) return undefined;
  return { served, after };
};

/**
 * The start and the pagination of a list request. A `page` beside a
 * `cursor`, or a cursor not sealed for this binding, is a 400 naming it.
 *
 * @example
 * const walk = listWalk(services, { companyId, list: "creditors", filters: {}, keyset: creditorOrder }, query);
 * const page = await listCreditors(services.db, companyId, walk.request);
 * return { body: { error: false, data: page.rows.map(present), pagination: walk.pagination(page) } };
 */
export const listWalk = (services: AppServices, binding: ListBinding, query: PaginationQuery): ListWalk => {
  const { cursor, limit } = query;
  if (cursor === undefined) {
    return { request: { page: query.page ?? 1, limit }, pagination: ({ total }) => paginationOf(query, total) };
  }
  if (query.page !== undefined) throw new ValidationFailed({ details: { page: CURSOR_WITH_PAGE } });
  const box = boxOf(services.config.idEncryptionKey);
  const bound = bindingText(binding);
  const start = cursor === "" ? { served: 0, after: undefined } : openCursor(box, bound, binding.keyset, cursor);
  if (start === undefined) throw new ValidationFailed({ details: { cursor: INVALID_CURSOR } });
  return {
    request: { after: start.after, limit },
    pagination: ({ total, rows, next }) => ({
      total,
      page: Math.floor(start.served / limit) + 1,
      limit,
      pages: Math.ceil(total / limit),
      next_cursor: next === undefined ? null : box.seal(bound, JSON.stringify([start.served + rows.length, ...next])),
    }),
  };
};
