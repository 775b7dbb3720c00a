/**
 * Typing help for path and query schemas. On the wire both are string
 * records; a struct of string-encoded fields is exactly that, but Schema's
 * invariant encoded type cannot see it, so these helpers check it once (the
 * constraint) and state it (the result type).
 */
import type { Schema } from "effect";

type PathRecord = Readonly<Record<string, string>>;
type QueryRecord = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>;

/** A struct of string-encoded path parameters, typed as the endpoint's `params`. */
export const pathParams = <A, I extends PathRecord>(schema: Schema.Schema<A, I>): Schema.Schema<A, PathRecord> =>
  schema as unknown as Schema.Schema<A, PathRecord>;

/** A struct of string-encoded query parameters, typed as the endpoint's `query`. */
export const queryParams = <A, I extends QueryRecord>(schema: Schema.Schema<A, I>): Schema.Schema<A, QueryRecord> =>
  schema as unknown as Schema.Schema<A, QueryRecord>;
