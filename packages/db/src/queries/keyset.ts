/**
 * Keyset pagination (docs/decisions/0595): a list's order declared once as
 * its key columns, the predicate "strictly after this key" that starts a page
 * where the previous one ended, and the key values of a row, selected with
 * the page so the next cursor can be made. With an index on `(company_id,
 * <scope>, <key columns>)` a page after a key is an index range scan: its
 * cost does not grow with the number of rows before it, as `OFFSET`'s does.
 */
import { type AliasedRawBuilder, type RawBuilder, sql } from "kysely";

/**
 * How a key column is carried: instants as integer microseconds since the
 * epoch (exact: PostgreSQL keeps microseconds, a JavaScript Date only
 * milliseconds), integers as numbers, uuids and text as strings.
 */
export type KeyKind = "instant" | "integer" | "uuid" | "text";

export interface KeyColumn {
  /** The column as the page's SQL names it (`d.created_at`). */
  readonly column: string;
  readonly direction: "asc" | "desc";
  readonly kind: KeyKind;
}

/** A list's order: its key columns, the last one unique among the filtered rows (an id). */
export type Keyset = ReadonlyArray<KeyColumn>;

/** The values of a row's key columns, in the keyset's order. */
export type KeyValues = ReadonlyArray<number | string>;

/** Where a page starts: `page` by number (`OFFSET`), or after a key (a cursor; `undefined` is the first page). */
export type PageRequest =
  | { readonly page: number; readonly limit: number }
  | { readonly after: KeyValues | undefined; readonly limit: number };

/** Whether `request` walks by key (a cursor) rather than by page number. */
export const isKeysetRequest = (request: PageRequest): request is Extract<PageRequest, { after: unknown }> =>
  "after" in request;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_TEXT_KEY = 200;

const isValueOf = (kind: KeyKind, value: unknown): boolean => {
  switch (kind) {
    case "instant":
    case "integer":
      return typeof value === "number" && Number.isSafeInteger(value);
    case "uuid":
      return typeof value === "string" && UUID.test(value);
    case "text":
      return typeof value === "string" && value.length <= MAX_TEXT_KEY;
  }
};

/** Whether `values` (from a cursor) are a key of `keyset`: as many values as columns, each of its column's kind. */
export const isKeyOf = (keyset: Keyset, values: unknown): values is KeyValues =>
  Array.isArray(values) &&
  values.length === keyset.length &&
  keyset.every((column, index) => isValueOf(column.kind, values[index]));

/** Integer microseconds since the epoch as an ISO 8601 instant with six fractional digits, which PostgreSQL reads exactly. */
export const instantOfMicros = (micros: number): string => {
  const millis = Math.floor(micros / 1000);
  const rest = micros - millis * 1000;
  return new Date(millis).toISOString().replace(/Z$/, `${String(rest).padStart(3, "0")}Z`);
};

const literal = (column: KeyColumn, value: number | string): RawBuilder<unknown> => {
  switch (column.kind) {
    case "instant":
      return sql`${instantOfMicros(value as number)}::timestamptz`;
    case "integer":
      return sql`${value}::int8`;
    case "uuid":
      return sql`${value}::uuid`;
    case "text":
      return sql`${value}::text`;
  }
};

const comparison = (column: KeyColumn) => sql.raw(column.direction === "asc" ? ">" : "<");

/**
 * The rows strictly after `values` in the keyset's order. When every column
 * runs the same way it is one row comparison, `(a, b) < (x, y)`, which a
 * b-tree on those columns serves as the start of a range scan; mixed
 * directions are spelled out column by column.
 */
export const keysetAfter = (keyset: Keyset, values: KeyValues): RawBuilder<boolean> => {
  const first = keyset[0];
  if (first === undefined) throw new Error("a keyset has at least one column");
  if (keyset.every((column) => column.direction === first.direction)) {
    const columns = sql.join(keyset.map((column) => sql.ref(column.column)));
    const bounds = sql.join(keyset.map((column, index) => literal(column, values[index]!)));
    return sql<boolean>`((${columns}) ${comparison(first)} (${bounds}))`;
  }
  const from = (index: number): RawBuilder<boolean> => {
    const column = keyset[index]!;
    const bound = literal(column, values[index]!);
    const strictly = sql<boolean>`${sql.ref(column.column)} ${comparison(column)} ${bound}`;
    if (index === keyset.length - 1) return strictly;
    return sql<boolean>`(${strictly} or (${sql.ref(column.column)} = ${bound} and ${from(index + 1)}))`;
  };
  return from(0);
};

/** `order by` of the keyset, as SQL. */
export const keysetOrder = (keyset: Keyset): RawBuilder<unknown> =>
  sql.join(keyset.map((column) => sql`${sql.ref(column.column)} ${sql.raw(column.direction)}`));

/** The most key columns a keyset has: the columns a row sheds are named statically. */
const MAX_KEY_COLUMNS = 3;

/** The names of the columns that carry a row's key among a page's selected columns. */
export const KEY_COLUMNS = ["page_key_0", "page_key_1", "page_key_2"] as const;

/**
 * A row's key as columns beside it (`page_key_0`, ...), each parsed by the
 * driver as its kind: instants as integer microseconds (int8, which the
 * pool reads as a number: exact below 2^53, past the year 2255), integers as
 * int8, uuids and text as text.
 */
export const keySelections = (keyset: Keyset): Array<AliasedRawBuilder<unknown, string>> => {
  if (keyset.length > MAX_KEY_COLUMNS) throw new Error(`a keyset has at most ${MAX_KEY_COLUMNS} columns`);
  return keyset.map((column, index) => {
    const ref = sql.ref(column.column);
    const value =
      column.kind === "instant"
        ? sql`(extract(epoch from ${ref}) * 1000000)::int8`
        : column.kind === "integer"
          ? sql`${ref}::int8`
          : sql`${ref}::text`;
    return value.as(KEY_COLUMNS[index]!);
  });
};

/** The key a row carries in its `page_key_N` columns (see `keySelections`). */
export const keyOfRow = (keyset: Keyset, row: Readonly<Record<string, unknown>>): KeyValues =>
  keyset.map((_column, index) => row[KEY_COLUMNS[index]!] as number | string);
