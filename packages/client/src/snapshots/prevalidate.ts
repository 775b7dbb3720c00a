/**
 * Snapshot rows checked in the client before any upload, with the domain's
 * own rules (`Snapshot.validateRows`, `Snapshot.checkAcrossRows`, the code
 * the api runs, with the same JsonText and SnapshotErrors modules), on the
 * rows as the api will read them (after JSON.stringify and JSON.parse), and
 * reported exactly as the api would answer: a 422
 * `invalid_snapshot_row` envelope whose `details` map `rows.<index>.<field>`
 * to the reason (or the 400 the api gives any JSON body it cannot take:
 * NUL characters, extreme nesting or string length). A bad export is caught
 * without spending a rate-limited call, and the error a caller handles is the
 * same either way.
 */
import { Snapshot, SnapshotErrors } from "@dc/domain";
import * as JsonText from "@dc/json-text";
import type { ApiError } from "../errors.ts";

/** At most this many row errors are listed in `details`; the rest are counted under `details.rows` (as the api does). */
export const MAX_LISTED_ROW_ERRORS = SnapshotErrors.MAX_LISTED_ROW_ERRORS;

/**
 * The body `{rows}` as the api parses it. JSON leaves out a key whose value
 * is `undefined` (TypeScript allows `email: undefined` in an optional field
 * unless exactOptionalPropertyTypes is on), writes `null` for NaN, Infinity
 * and an undefined element, and calls `toJSON` (a Date becomes its ISO text):
 * the rules must judge those values, not the objects in memory.
 */
const asSent = (rows: ReadonlyArray<unknown>): { readonly rows: ReadonlyArray<unknown> } =>
  JSON.parse(JSON.stringify({ rows })) as { readonly rows: ReadonlyArray<unknown> };

const rowErrorsOf = (sent: ReadonlyArray<unknown>): Array<Snapshot.RowError> => {
  const { rows: valid, errors } = Snapshot.validateRows(sent, { firstRowIndex: 0 });
  return SnapshotErrors.sortByRow([...errors, ...Snapshot.checkAcrossRows(valid), ...SnapshotErrors.unstorableTextErrors(sent, 0)]);
};

/**
 * Every rule violation of a whole snapshot's rows (per row and across rows),
 * by row index, as the domain reports them for the rows as sent (JSON). Empty
 * when the rows are valid.
 */
export const snapshotRowErrors = (rows: ReadonlyArray<unknown>): Array<Snapshot.RowError> => rowErrorsOf(asSent(rows).rows);

/**
 * The error the api would answer a snapshot of these rows with, or
 * `undefined` when they pass: a 422 `invalid_snapshot_row` `ApiError` (the
 * same `details` the one-request submit or the staged finalize would give),
 * or the 400 of a body the api refuses before reading rows.
 *
 * @example
 * const problem = prevalidateSnapshot(rows);
 * if (problem) for (const [field, reason] of Object.entries(problem.details ?? {})) console.error(field, reason);
 */
export const prevalidateSnapshot = (rows: ReadonlyArray<unknown>): ApiError | undefined => {
  // JSON.stringify then JSON.parse on the api's side: what the api walks is the body as it will be parsed.
  const body = asSent(rows);
  const violation = JsonText.findLimitViolation(body);
  if (violation !== undefined) {
    return {
      kind: "api",
      status: 400,
      message: "Validation failed",
      code: 400,
      details: { [JsonText.violationField(violation)]: violation.message },
    };
  }
  const errors = rowErrorsOf(body.rows);
  if (errors.length === 0) return undefined;
  return {
    kind: "api",
    status: 422,
    message: "Validation failed",
    code: 422,
    errorCode: "invalid_snapshot_row",
    details: SnapshotErrors.rowErrorDetails(errors),
  };
};
