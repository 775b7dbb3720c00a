/**
 * How row errors of a snapshot are reported: the rows PostgreSQL could not
 * store, the amounts a number cannot hold exactly, and the `details` object of an `invalid_snapshot_row` answer
 * (`rows.<index>.<field>` -> reason, at most 100 listed). The api answers
 * with it and the client's pre-validation predicts it, from this one module.
 */
import * as JsonText from "@dc/json-text";
import * as Money from "./Money.ts";
import { MAX_DETAILED_ROW_ERRORS, type RowError } from "./SnapshotRow.ts";

/** At most this many row errors are listed; the rest are counted under `rows`. */
export const MAX_LISTED_ROW_ERRORS = 100;

export const unstorableReason = "must not contain the NUL character (\\u0000) or an unpaired UTF-16 surrogate";

/** One error per row holding a key or string PostgreSQL cannot store (the legacy key's value included: it is stored). */
export const unstorableTextErrors = (rows: ReadonlyArray<unknown>, firstRowIndex: number): Array<RowError> =>
  rows.flatMap((row, index) => {
    const field = JsonText.firstUnstorable(row);
    return field === undefined ? [] : [{ row_index: firstRowIndex + index, field, reason: unstorableReason }];
  });

const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * One error per amount (`remaining_amount`, an installment's `amount`) whose
 * JSON text in `bodyText`, `{"rows": [...]}`, has more significant digits than
 * a number holds exactly: JSON.parse would round it to a neighbouring value
 * (`12.3400000000000000001` to `12.34`) that the row rules would then judge.
 * Only the body text shows this; a body with no number of 16 digits or more
 * (digits inside strings do not count) is not parsed again.
 */
export const inexactAmountErrors = (bodyText: string, firstRowIndex: number): Array<RowError> => {
  const inexact = Money.inexactNumbers(bodyText);
  const body = inexact?.value;
  if (inexact === undefined || !isJsonObject(body) || !Array.isArray(body["rows"])) return [];
  const errors: Array<RowError> = [];
  body["rows"].forEach((row: unknown, i: number) => {
    if (!isJsonObject(row)) return;
    const rowIndex = firstRowIndex + i;
    const remaining = inexact.at(row, "remaining_amount");
    if (remaining !== undefined) errors.push({ row_index: rowIndex, field: "remaining_amount", reason: remaining });
    const plan = row["payment_plan"];
    const installments = isJsonObject(plan) ? plan["installments"] : undefined;
    if (!Array.isArray(installments)) return;
    installments.forEach((item: unknown, j: number) => {
      const amount = inexact.at(item, "amount");
      if (amount !== undefined) {
        errors.push({ row_index: rowIndex, field: `payment_plan.installments.${j}.amount`, reason: amount });
      }
    });
  });
  return errors;
};

const byRowIndex = (a: RowError, b: RowError): number => a.row_index - b.row_index;

/** Sorts errors by row index (stable: a row's errors keep their order). */
export const sortByRow = (errors: ReadonlyArray<RowError>): Array<RowError> => [...errors].sort(byRowIndex);

/**
 * The `details` of an `invalid_snapshot_row` answer: `rows.<index>.<field>` -> reason (reasons on one key joined).
 * `count` is the number of errors in all when `errors` holds only the first of them (at least the first
 * `MAX_LISTED_ROW_ERRORS`, by row).
 */
export const rowErrorDetails = (
  errors: ReadonlyArray<RowError>,
  count: number = errors.length,
): Record<string, string> => {
  const sorted = sortByRow(errors);
  const details: Record<string, string> = {};
  const listed = sorted.slice(0, MAX_LISTED_ROW_ERRORS);
  for (const error of listed) {
    const key = error.field === "" ? `rows.${error.row_index}` : `rows.${error.row_index}.${error.field}`;
    details[key] = details[key] === undefined ? error.reason : `${details[key]}; ${error.reason}`;
  }
  const omitted = count - listed.length;
  // Past MAX_DETAILED_ROW_ERRORS, later rows count one error each, at least.
  const atLeast = count >= MAX_DETAILED_ROW_ERRORS ? "at least " : "";
  if (omitted > 0)
    details["rows"] = `${atLeast}${omitted} more row error(s) not listed; the first ${MAX_LISTED_ROW_ERRORS} are`;
  return details;
};
