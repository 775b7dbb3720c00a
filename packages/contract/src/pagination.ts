/**
 * Pagination of every list operation (contract 4.9): `page` from 1 (default
 * 1), `limit` from 1 to 100 (default 20). Out-of-range values are a 400
 * naming the parameter, never silently clamped (docs/decisions/0003).
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

/** A query-string integer in [min, max] with a default when absent. */
export const QueryInt = (options: { readonly min: number; readonly max: number; readonly default: number; readonly description: string }) =>
  Schema.optionalWith(
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
    }),
    { default: () => options.default },
  );

export const paginationFields = {
  page: QueryInt({ min: 1, max: 1_000_000, default: 1, description: "Page number, from 1" }),
  limit: QueryInt({ min: 1, max: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: "Page size, at most 100" }),
};

export const PaginationQuery = Schema.Struct(paginationFields);
export type PaginationQuery = typeof PaginationQuery.Type;

/** The `pagination` object of a list envelope. */
export const paginationOf = (query: PaginationQuery, total: number) => ({
  total,
  page: query.page,
  limit: query.limit,
  pages: Math.ceil(total / query.limit),
});
