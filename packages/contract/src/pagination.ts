/**
 * Pagination of every list operation (contract 4.9): `page` from 1 (default
 * 1), `limit` from 1 to 100 (default 20). Out-of-range values are a 400
 * naming the parameter, never silently clamped (docs/decisions/0003).
 * Beyond the contract, every list also walks by `cursor`
 * (docs/decisions/0595): a cursor page carries `pagination.next_cursor`.
 */
import { Schema } from "effect";

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/**
 * A number in a query string written plainly: decimal digits, with a
 * fraction when `fraction` is set; no sign, exponent, hexadecimal form or
 * spaces (`Number()` would read `0x10` as 16 and ` 1` as 1).
 */
export const plainNumberPattern = (fraction: boolean): RegExp =>
  fraction ? /^[0-9]{1,16}(\.[0-9]{1,16})?$/ : /^[0-9]{1,16}$/;

/** A plain number string (see `plainNumberPattern`) decoded to a number. */
export const PlainNumberString = (fraction: boolean, message: string) =>
  Schema.String.pipe(
    Schema.pattern(plainNumberPattern(fraction), { message: () => message }),
    Schema.compose(Schema.NumberFromString),
  );

interface QueryIntOptions {
  readonly min: number;
  readonly max: number;
  readonly default: number;
  readonly description: string;
}

/** A query-string integer in [min, max]; `default` is documented only. */
const queryInteger = (options: QueryIntOptions) =>
  PlainNumberString(false, `must be an integer from ${options.min} to ${options.max}`).pipe(
    Schema.int(),
    Schema.between(options.min, options.max),
  ).annotations({
    // Overriding the inner checks' messages: past the safe integers `int` fails before the range, and says the same.
    message: () => ({ message: `must be an integer from ${options.min} to ${options.max}`, override: true }),
    // The parameter's description; without it the `between` filter's generic one ("a number between...") shows.
    description: options.description,
    jsonSchema: {
      type: "integer",
      minimum: options.min,
      maximum: options.max,
      default: options.default,
      description: options.description,
    },
  });

/** A query-string integer in [min, max] with a default when absent. */
export const QueryInt = (options: QueryIntOptions) =>
  Schema.optionalWith(queryInteger(options), { default: () => options.default });

/** The longest cursor the api issues or reads (docs/decisions/0595). */
export const MAX_CURSOR_LENGTH = 512;

export const paginationFields = {
  // Decoded without its default, so that a `page` given beside a `cursor` can be refused; absent, it is page 1.
  page: Schema.optional(
    queryInteger({
      min: 1,
      max: 1_000_000,
      default: 1,
      description: "Page number, from 1. Not with `cursor`, which says where its page starts.",
    }),
  ),
  limit: QueryInt({ min: 1, max: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: "Page size, at most 100" }),
  cursor: Schema.optional(
    Schema.String.pipe(
      Schema.maxLength(MAX_CURSOR_LENGTH, { message: () => `must be at most ${MAX_CURSOR_LENGTH} characters` }),
    ).annotations({
      description:
        "Walks the list by cursor instead of by page number: an empty value asks for the first page, and each " +
        "cursor page's `pagination.next_cursor` (null on the last page) asks for the next one. A cursor page is " +
        "read from where the previous one ended, as fast at any depth; rows created or deleted meanwhile never " +
        "make the walk skip or repeat a row, and a new row is in it only if it sorts after the current page. A cursor is " +
        "opaque and works only for the company, list and filters it was issued for (`limit` may change); " +
        "anything else, altered or not, is a 400 naming `cursor`. Not with `page`.",
    }),
  ),
};

export const PaginationQuery = Schema.Struct(paginationFields);
export type PaginationQuery = typeof PaginationQuery.Type;

/** The `pagination` object of a list envelope read by page number (`cursor` absent). */
export const paginationOf = (query: PaginationQuery, total: number) => ({
  total,
  page: query.page ?? 1,
  limit: query.limit,
  pages: Math.ceil(total / query.limit),
});
