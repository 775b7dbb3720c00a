/** The response envelopes of contract 2.1, 7.1 and 7.3, as schemas. */
import { Schema } from "effect";

/** `{error:false, message, data}`: single-resource and mutating responses. */
export const DataEnvelope = <A, I>(data: Schema.Schema<A, I>) =>
  Schema.Struct({ error: Schema.Literal(false), message: Schema.String, data });

/** `{error:false, message}`: mutating responses without data (delete). */
export const MessageEnvelope = Schema.Struct({ error: Schema.Literal(false), message: Schema.String }).annotations({
  identifier: "MessageEnvelope",
});

export const Pagination = Schema.Struct({
  total: Schema.Int.annotations({ description: "Rows matching the filters (before pagination)" }),
  page: Schema.Int.annotations({
    description:
      "Current page, from 1. On a cursor page: 1 + the rows of the walk's earlier pages divided by `limit`, rounded down",
  }),
  limit: Schema.Int.annotations({ description: "Page size" }),
  pages: Schema.Int.annotations({ description: "Number of pages: ceil(total / limit)" }),
  next_cursor: Schema.optional(
    Schema.NullOr(Schema.String).annotations({
      description:
        "Only on a page read with `cursor`: the `cursor` of the next page, or null when this page is the last",
    }),
  ),
}).annotations({ identifier: "Pagination" });

/** `{error:false, data:[...], pagination}`: list responses. */
export const ListEnvelope = <A, I>(item: Schema.Schema<A, I>) =>
  Schema.Struct({ error: Schema.Literal(false), data: Schema.Array(item), pagination: Pagination });

export const ValidationIssue = Schema.Struct({ property: Schema.String, message: Schema.String }).annotations({
  identifier: "ValidationIssue",
});

/**
 * `{error:true, message, code}` with `code` equal to the HTTP status. Validation
 * failures add `details` (field name -> message) and `errors` (the same, as a
 * list of `{property, message}`); snapshot and rate-limit errors add a stable
 * machine-readable `error_code`.
 */
export const ErrorEnvelope = Schema.Struct({
  error: Schema.Literal(true),
  message: Schema.String,
  code: Schema.Int,
  error_code: Schema.optional(Schema.String),
  details: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  errors: Schema.optional(Schema.Array(ValidationIssue)),
}).annotations({ identifier: "ErrorEnvelope", description: "Error envelope" });
export type ErrorEnvelope = typeof ErrorEnvelope.Type;

export const OAuthErrorCode = Schema.Literal(
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "invalid_scope",
  "unauthorized_client",
  "unsupported_grant_type",
  "access_denied",
  "redirect_uri_mismatch",
  "slow_down",
  "server_error",
  "temporarily_unavailable",
);

/** `{error, error_description}` of the token endpoint (contract 7.3, RFC 6749 5.2). */
export const OAuthError = Schema.Struct({
  error: OAuthErrorCode,
  error_description: Schema.String,
}).annotations({ identifier: "OAuthError" });
export type OAuthError = typeof OAuthError.Type;
