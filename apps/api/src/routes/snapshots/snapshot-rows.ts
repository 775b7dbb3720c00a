/**
 * Validation of the rows of a one-request submit or a chunk, before anything
 * is stored: the body envelope and the 20,000-row limit (`Snapshot.decodeBody`),
 * the per-row rules (`Snapshot.validateRows`, with snapshot-wide indexes), the
 * rules across the rows of the body (`Snapshot.checkAcrossRows`), text that
 * PostgreSQL cannot store and amounts a number cannot hold exactly
 * (`SnapshotErrors.inexactAmountErrors`). Failures are the 400/422 envelopes
 * of docs/decisions/0300.
 */
import { snapshotErrorCodes } from "@dc/contract";
import { Snapshot, SnapshotErrors } from "@dc/domain";
import { Either } from "effect";
import { ValidationFailed } from "../../http/api-error.ts";

// Unstorable text can only arrive as escapes: raw control characters are invalid JSON and invalid UTF-8 decodes to U+FFFD.
const SUSPECT_ESCAPE = /\\u(0000|[dD][89a-fA-F])/;

/**
 * 422 `invalid_snapshot_row` naming the invalid row fields: all of `errors`, or the first of
 * them when `count` says how many there are in all.
 */
export const invalidRows = (errors: ReadonlyArray<Snapshot.RowError>, count: number = errors.length): ValidationFailed =>
  new ValidationFailed({
    status: 422,
    errorCode: snapshotErrorCodes.invalidRow,
    details: SnapshotErrors.rowErrorDetails(errors, count),
  });

/**
 * Returns the raw rows of a valid body and their validated form, or throws:
 * 400 (`too_many_rows` past 20,000) or 422 `invalid_snapshot_row`.
 * `firstRowIndex` numbers the rows over the whole snapshot (a chunk's first
 * row is the snapshot's `received_row_count`).
 */
export const validateSnapshotRows = (
  body: unknown,
  bodyText: string,
  firstRowIndex: number,
): { readonly raw: ReadonlyArray<unknown>; readonly valid: ReadonlyArray<Snapshot.ValidRow> } => {
  const decoded = Snapshot.decodeBody(body);
  if (Either.isLeft(decoded)) {
    const { reason, field, message } = decoded.left;
    throw new ValidationFailed({
      details: { [field === "" ? "body" : field]: message },
      ...(reason === "too_many_rows" ? { errorCode: snapshotErrorCodes.tooManyRows } : {}),
    });
  }
  const raw = decoded.right;
  const { rows: valid, errors } = Snapshot.validateRows(raw, { firstRowIndex });
  // Most bodies hold no `\u0000` or surrogate escape, and skip the walk for unstorable text.
  const unstorable = SUSPECT_ESCAPE.test(bodyText) ? SnapshotErrors.unstorableTextErrors(raw, firstRowIndex) : [];
  errors.push(
    ...Snapshot.checkAcrossRows(valid),
    ...unstorable,
    ...SnapshotErrors.inexactAmountErrors(bodyText, firstRowIndex),
  );
  if (errors.length > 0) throw invalidRows(errors);
  return { raw, valid };
};
