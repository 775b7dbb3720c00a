/**
 * How row errors of a snapshot are reported: the rows PostgreSQL could not
 * store, and the `details` object of an `invalid_snapshot_row` answer
 * (`rows.<index>.<field>` -> reason, at most 100 listed). The api answers
 * with it and the client's pre-validation predicts it, from this one module.
 */
import * as JsonText from "./JsonText.ts";
import type { RowError } from "./SnapshotRow.ts";

/** At most this many row errors are listed; the rest are counted under `rows`. */
export const MAX_LISTED_ROW_ERRORS = 100;

export const unstorableReason = "must not contain the NUL character (\\u0000) or an unpaired UTF-16 surrogate";

/** One error per row holding a key or string PostgreSQL cannot store (the legacy key's value included: it is stored). */
export const unstorableTextErrors = (rows: ReadonlyArray<unknown>, firstRowIndex: number): Array<RowError> =>
  rows.flatMap((row, index) => {
    const field = JsonText.firstUnstorable(row);
    return field === undefined ? [] : [{ row_index: firstRowIndex + index, field, reason: unstorableReason }];
  });

const byRowIndex = (a: RowError, b: RowError): number => a.row_index - b.row_index;

/** Sorts errors by row index (stable: a row's errors keep their order). */
export const sortByRow = (errors: ReadonlyArray<RowError>): Array<RowError> => [...errors].sort(byRowIndex);

/** The `details` of an `invalid_snapshot_row` answer: `rows.<index>.<field>` -> reason (reasons on one key joined). */
export const rowErrorDetails = (errors: ReadonlyArray<RowError>): Record<string, string> => {
  const sorted = sortByRow(errors);
  const details: Record<string, string> = {};
  const listed = sorted.slice(0, MAX_LISTED_ROW_ERRORS);
  for (const error of listed) {
    const key = error.field === "" ? `rows.${error.row_index}` : `rows.${error.row_index}.${error.field}`;
    details[key] = details[key] === undefined ? error.reason : `${details[key]}; ${error.reason}`;
  }
  const omitted = sorted.length - listed.length;
  if (omitted > 0) details["rows"] = `${omitted} more row error(s) not listed; the first ${MAX_LISTED_ROW_ERRORS} are`;
  return details;
};
