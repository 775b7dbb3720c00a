/**
 * Snapshots (contract 2.8, 3.4, 4.2, 4.3): lifecycle statuses, delivery
 * modes, size limits, the request body and the rules that span rows
 * (duplicate identities, duplicate invoice references, one stream per
 * snapshot). Per-row rules live in SnapshotRow and are re-exported here.
 */
import { Data, Either, Schema } from "effect";
import type { RowError, ValidRow } from "./SnapshotRow.ts";

export { effectiveIdentity, legacyKey, rejectedKeys, Row, streamOf, validateRows } from "./SnapshotRow.ts";
export type { Identity, RowError, Stream, ValidRow } from "./SnapshotRow.ts";

/** Most rows in one `rows` array (one request or one chunk). */
export const MAX_ROWS = 20_000;

/** Largest accepted request body (10 MiB), for chunk upload and one-request submit. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

export const statuses = ["pending", "uploading", "processing", "completed", "failed"] as const;
export type SnapshotStatus = (typeof statuses)[number];

/** Schema of a snapshot status. */
export const SnapshotStatus = Schema.Literal(...statuses).annotations({ identifier: "SnapshotStatus" });

export const deliveryModes = ["staged", "one_request"] as const;
export type DeliveryMode = (typeof deliveryModes)[number];

/** Schema of a snapshot delivery mode. */
export const DeliveryMode = Schema.Literal(...deliveryModes).annotations({ identifier: "SnapshotDeliveryMode" });

/** The request body itself is unusable: not an object, no `rows` array, extra keys or too many rows. */
export class InvalidSnapshotBody extends Data.TaggedError("InvalidSnapshotBody")<{
  readonly reason: "invalid_body" | "too_many_rows";
  readonly field: string;
  readonly message: string;
}> {}

/**
 * Checks the body envelope `{ rows: [...] }` of a submit or a chunk and
 * returns the raw rows, to be validated with `validateRows`.
 */
export const decodeBody = (body: unknown): Either.Either<ReadonlyArray<unknown>, InvalidSnapshotBody> => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return Either.left(
      new InvalidSnapshotBody({ reason: "invalid_body", field: "", message: "body must be a JSON object" }),
    );
  }
  const extra = Object.keys(body).find((key) => key !== "rows");
  if (extra !== undefined) {
    return Either.left(
      new InvalidSnapshotBody({ reason: "invalid_body", field: extra, message: `unknown key "${extra}"` }),
    );
  }
  const rows: unknown = (body as { rows?: unknown }).rows;
  if (!Array.isArray(rows)) {
    return Either.left(
      new InvalidSnapshotBody({ reason: "invalid_body", field: "rows", message: "rows must be an array" }),
    );
  }
  if (rows.length > MAX_ROWS) {
    return Either.left(
      new InvalidSnapshotBody({
        reason: "too_many_rows",
        field: "rows",
        message: `rows must contain at most ${MAX_ROWS} items, got ${rows.length}`,
      }),
    );
  }
  return Either.right(rows);
};

/**
 * Rules across rows, for a whole snapshot (concatenate the valid rows of all
 * chunks, in order): an effective identity appears once; an invoice reference
 * appears once among rows that carry one, whatever their identity; every row
 * uses the stream of the first row. Errors go on the later row. O(n).
 */
export const checkAcrossRows = (rows: ReadonlyArray<ValidRow>): Array<RowError> => {
  const errors: Array<RowError> = [];
  const identities = new Map<string, number>();
  const invoices = new Map<string, number>();
  const first = rows[0];
  for (const row of rows) {
    if (first !== undefined && row.stream !== first.stream) {
      errors.push({
        row_index: row.rowIndex,
        field: "internal_id",
        reason:
          first.stream === "account"
            ? `is required: this snapshot uses account balances (internal_id) since row ${first.rowIndex}`
            : `is not allowed: this snapshot uses invoice balances (invoice_reference) since row ${first.rowIndex}`,
      });
    }
    const key = `${row.identity.kind}\u0000${row.identity.value}`;
    const seen = identities.get(key);
    if (seen === undefined) identities.set(key, row.rowIndex);
    else {
      errors.push({
        row_index: row.rowIndex,
        field: row.identity.kind,
        reason: `duplicate ${row.identity.kind} "${row.identity.value}" (first used by row ${seen})`,
      });
    }
    if (row.invoiceReference !== null) {
      const seenInvoice = invoices.get(row.invoiceReference);
      if (seenInvoice === undefined) invoices.set(row.invoiceReference, row.rowIndex);
      // An invoice-stream row whose identity was just reported as a duplicate is not reported twice.
      else if (row.identity.kind === "internal_id" || seen === undefined) {
        errors.push({
          row_index: row.rowIndex,
          field: "invoice_reference",
          reason: `duplicate invoice_reference "${row.invoiceReference}" (first used by row ${seenInvoice})`,
        });
      }
    }
  }
  return errors;
};
