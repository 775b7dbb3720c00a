/**
 * Snapshots (contract 2.8, 3.4, 4.2, 4.3): lifecycle statuses, delivery
 * modes, size limits, the request body and the rules that span rows
 * (duplicate identities, duplicate invoice references, one stream per
 * snapshot). Per-row rules live in SnapshotRow and are re-exported here.
 */
import { Data, Either, Schema } from "effect";
import { missingIdentityError } from "./SnapshotRow.ts";
import type { Identity, RowError, Stream, ValidRow } from "./SnapshotRow.ts";

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
 * The rules across rows, in the order their errors on one row are listed.
 * `missing_identity` only arises from stored identity fields (a row with
 * neither key); rows that passed `validateRows` always have an identity.
 */
export const acrossRowsRules = ["missing_identity", "stream", "duplicate_identity", "duplicate_invoice"] as const;
export type AcrossRowsRule = (typeof acrossRowsRules)[number];

/**
 * One broken rule across rows, as facts with no text: row `rowIndex` breaks
 * it, `firstRowIndex` is the earlier row it clashes with. Whoever finds the
 * facts (this module's `checkAcrossRows`, or a database query over stored
 * rows) turns them into errors with `acrossRowsError`, so the messages have
 * one definition.
 */
export type AcrossRowsFact =
  | { readonly rule: "missing_identity"; readonly rowIndex: number }
  | { readonly rule: "stream"; readonly rowIndex: number; readonly firstRowIndex: number; readonly firstStream: Stream }
  | {
      readonly rule: "duplicate_identity";
      readonly rowIndex: number;
      readonly firstRowIndex: number;
      readonly identity: Identity;
    }
  | {
      readonly rule: "duplicate_invoice";
      readonly rowIndex: number;
      readonly firstRowIndex: number;
      readonly invoiceReference: string;
    };

/** The row error a broken rule across rows is reported as. */
export const acrossRowsError = (fact: AcrossRowsFact): RowError => {
  switch (fact.rule) {
    case "missing_identity":
      return missingIdentityError(fact.rowIndex);
    case "stream":
      return {
        row_index: fact.rowIndex,
        field: "internal_id",
        reason:
          fact.firstStream === "account"
            ? `is required: this snapshot uses account balances (internal_id) since row ${fact.firstRowIndex}`
            : `is not allowed: this snapshot uses invoice balances (invoice_reference) since row ${fact.firstRowIndex}`,
      };
    case "duplicate_identity":
      return {
        row_index: fact.rowIndex,
        field: fact.identity.kind,
        reason: `duplicate ${fact.identity.kind} "${fact.identity.value}" (first used by row ${fact.firstRowIndex})`,
      };
    case "duplicate_invoice":
      return {
        row_index: fact.rowIndex,
        field: "invoice_reference",
        reason: `duplicate invoice_reference "${fact.invoiceReference}" (first used by row ${fact.firstRowIndex})`,
      };
  }
};

/** What `checkAcrossRows` reads of a row. */
export type AcrossRowsInput = Pick<ValidRow, "rowIndex" | "identity" | "stream" | "invoiceReference">;

/**
 * Rules across rows, for a whole snapshot (concatenate the valid rows of all
 * chunks, in order): an effective identity appears once; an invoice reference
 * appears once among rows that carry one, whatever their identity; every row
 * uses the stream of the first row. Errors go on the later row, in row order
 * and, on one row, in the order of `acrossRowsRules`. O(n).
 *
 * This is the reference semantics: `findCrossRowErrors` of @dc/db computes
 * the same errors over a stored snapshot in PostgreSQL, and a property test
 * holds the two equal.
 */
export const checkAcrossRows = (rows: ReadonlyArray<AcrossRowsInput>): Array<RowError> => {
  const errors: Array<RowError> = [];
  const identities = new Map<string, number>();
  const invoices = new Map<string, number>();
  const first = rows[0];
  for (const row of rows) {
    if (first !== undefined && row.stream !== first.stream) {
      errors.push(
        acrossRowsError({
          rule: "stream",
          rowIndex: row.rowIndex,
          firstRowIndex: first.rowIndex,
          firstStream: first.stream,
        }),
      );
    }
    const key = `${row.identity.kind}\u0000${row.identity.value}`;
    const seen = identities.get(key);
    if (seen === undefined) identities.set(key, row.rowIndex);
    else {
      errors.push(
        acrossRowsError({
          rule: "duplicate_identity",
          rowIndex: row.rowIndex,
          firstRowIndex: seen,
          identity: row.identity,
        }),
      );
    }
    if (row.invoiceReference !== null) {
      const seenInvoice = invoices.get(row.invoiceReference);
      if (seenInvoice === undefined) invoices.set(row.invoiceReference, row.rowIndex);
      // An invoice-stream row whose identity was just reported as a duplicate is not reported twice.
      else if (row.identity.kind === "internal_id" || seen === undefined) {
        errors.push(
          acrossRowsError({
            rule: "duplicate_invoice",
            rowIndex: row.rowIndex,
            firstRowIndex: seenInvoice,
            invoiceReference: row.invoiceReference,
          }),
        );
      }
    }
  }
  return errors;
};
