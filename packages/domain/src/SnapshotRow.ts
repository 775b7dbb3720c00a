/**
 * One snapshot row (contract 2.9): its schema, its identity and stream, and
 * the per-row validation that needs no database, turning raw JSON rows into
 * normalised rows with exact minor-unit balances or into field errors.
 */
import { Either, type ParseResult, Schema } from "effect";
import * as Contact from "./Contact.ts";
import * as Money from "./Money.ts";
import * as PaymentPlan from "./PaymentPlan.ts";
import { type Issue, plainIssues } from "./ParseIssues.ts";
import * as RowGuard from "./fast-paths/RowGuard.ts";

/** A rule violation of one row; `field` is a dotted path (`""` for the row itself). */
export interface RowError {
  readonly row_index: number;
  readonly field: string;
  readonly reason: string;
}

/** Which balance a snapshot carries: one account per row or one invoice per row. */
export type Stream = "account" | "invoice";

/** The key a row is matched on: `internal_id` when present (primary), else `invoice_reference`. */
export interface Identity {
  readonly kind: "internal_id" | "invoice_reference";
  readonly value: string;
}

/** A row that passed every per-row rule, normalised (absent fields are `null`). */
export interface ValidRow {
  readonly rowIndex: number;
  readonly identity: Identity;
  readonly stream: Stream;
  readonly internalId: string | null;
  readonly invoiceReference: string | null;
  readonly remainingMinor: number;
  readonly currency: string;
  readonly firstname: string | null;
  readonly lastname: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  /** `null` when the row has no `payment_plan` (the local plan is kept). */
  readonly paymentPlan: PaymentPlan.MinorPlan | null;
}

/** Legacy key tolerated and ignored whatever its JSON type (contract 9.3). */
export const legacyKey = "accept_expensive_destination";

/** Keys of older row formats that are refused with a specific message. */
export const rejectedKeys: ReadonlyArray<string> = [
  "snapshot_at",
  "allocations",
  "financial_operations",
  "coverage",
  "covered_remaining_amount",
];

/**
 * Schema of a snapshot row: the canonical shape (for documents and types).
 * Unknown keys are rejected; the legacy key is accepted with any value.
 * Validate request rows with `validateRows`, which also reads `null` in an
 * optional field as absent and applies the rules the schema cannot express.
 */
export const Row = Schema.Struct({
  invoice_reference: Schema.optionalWith(PaymentPlan.Reference, { exact: true }),
  internal_id: Schema.optionalWith(PaymentPlan.Reference, { exact: true }),
  remaining_amount: Schema.Number.annotations({ message: () => "must be a number" }).pipe(
    Schema.finite({ message: () => "must be a finite number" }),
    Schema.nonNegative({ message: () => "must be greater than or equal to 0" }),
  ),
  currency: Money.CurrencyCode,
  firstname: Schema.optionalWith(Contact.Name, { exact: true }),
  lastname: Schema.optionalWith(Contact.Name, { exact: true }),
  email: Schema.optionalWith(Contact.Email, { exact: true }),
  phone: Schema.optionalWith(Contact.Phone, { exact: true }),
  payment_plan: Schema.optionalWith(PaymentPlan.PaymentPlan.annotations({ message: () => "must be an object" }), {
    exact: true,
  }),
  [legacyKey]: Schema.optionalWith(Schema.Unknown, { exact: true }).annotations({
    description: "Legacy key: tolerated and ignored whatever its value.",
  }),
}).annotations({ identifier: "SnapshotRow", parseOptions: { onExcessProperty: "error" } });
export type Row = typeof Row.Type;

const decodeRowFully = Schema.decodeUnknownEither(Row, { errors: "all", onExcessProperty: "error" });
const decodeRowToFirstProblem = Schema.decodeUnknownEither(Row, { errors: "first", onExcessProperty: "error" });

/**
 * Once the rows validated so far have this many errors, each later row is
 * refused on its first problem only. A 10 MiB body can hold 9,000 rows of
 * 500 wrong installments each: naming all 4,500,000 problems would hold the
 * api's one thread for many seconds, to list the first 100
 * (`SnapshotErrors.rowErrorDetails`).
 */
export const MAX_DETAILED_ROW_ERRORS = 1_000;

/** The error of a row that has neither `internal_id` nor `invoice_reference`. */
export const missingIdentityError = (rowIndex: number): RowError => ({
  row_index: rowIndex,
  field: "internal_id",
  reason: "internal_id or invoice_reference is required",
});

/** Identity of a decoded row, or `undefined` when it has neither key. */
export const effectiveIdentity = (row: Pick<Row, "internal_id" | "invoice_reference">): Identity | undefined => {
  if (row.internal_id !== undefined) return { kind: "internal_id", value: row.internal_id };
  if (row.invoice_reference !== undefined) return { kind: "invoice_reference", value: row.invoice_reference };
  return undefined;
};

/** Stream of an identity: `account` for `internal_id`, `invoice` for `invoice_reference`. */
export const streamOf = (identity: Identity): Stream => (identity.kind === "internal_id" ? "account" : "invoice");

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const optionalRowKeys: ReadonlySet<string> = new Set([
  "invoice_reference",
  "internal_id",
  "firstname",
  "lastname",
  "email",
  "phone",
  "payment_plan",
]);
const optionalInstallmentKeys: ReadonlySet<string> = new Set(["paid_at", "external_payment_id"]);

const withoutKeys = (object: Json, drop: (key: string, value: unknown) => boolean): Json => {
  const keys = Object.keys(object);
  if (!keys.some((key) => drop(key, object[key]))) return object;
  const copy: Json = {};
  for (const key of keys) if (!drop(key, object[key])) copy[key] = object[key];
  return copy;
};

const dropRowKey = (key: string, value: unknown): boolean =>
  key === legacyKey || (value === null && optionalRowKeys.has(key));
const dropInstallmentKey = (key: string, value: unknown): boolean => value === null && optionalInstallmentKeys.has(key);
const hasNullInstallmentKey = (item: Json): boolean => item["paid_at"] === null || item["external_payment_id"] === null;

/**
 * Drops the legacy key and treats `null` in optional fields as absent, copying
 * only rows that need it (most rows are passed through untouched).
 */
const prepare = (raw: Json): Json => {
  const row = withoutKeys(raw, dropRowKey);
  const plan = row["payment_plan"];
  if (!isObject(plan) || !Array.isArray(plan["installments"])) return row;
  const items: ReadonlyArray<unknown> = plan["installments"];
  if (!items.some((item) => isObject(item) && hasNullInstallmentKey(item))) return row;
  const installments = items.map((item) => (isObject(item) ? withoutKeys(item, dropInstallmentKey) : item));
  return { ...row, payment_plan: { ...plan, installments } };
};

const reasonOf = (issue: Issue): string => {
  if (issue._tag === "Missing") return "is required";
  if (issue._tag === "Unexpected") {
    const key = String(issue.path[issue.path.length - 1]);
    return issue.path.length === 1 && rejectedKeys.includes(key)
      ? `"${key}" is not accepted in snapshot rows`
      : `unknown key "${key}"`;
  }
  return issue.message;
};

const toRowErrors = (rowIndex: number, error: ParseResult.ParseError): Array<RowError> =>
  plainIssues(error).map((item) => ({
    row_index: rowIndex,
    field: item.path.join("."),
    reason: reasonOf(item),
  }));

const nullable = (value: string | undefined): string | null => value ?? null;

const validateRow = (raw: unknown, rowIndex: number, detailed: boolean): Either.Either<ValidRow, Array<RowError>> => {
  if (!isObject(raw)) return Either.left([{ row_index: rowIndex, field: "", reason: "row must be a JSON object" }]);
  const prepared = prepare(raw);
  const errors: Array<RowError> = [];
  if (!("internal_id" in prepared) && !("invoice_reference" in prepared)) {
    errors.push(missingIdentityError(rowIndex));
  }
  let row: Row;
  // The guard accepts only what the schema accepts unchanged, so the prepared object is the decoded row.
  if (RowGuard.isSurelyValid(prepared)) row = prepared as Row;
  else {
    const decoded = (detailed ? decodeRowFully : decodeRowToFirstProblem)(prepared);
    if (Either.isLeft(decoded)) return Either.left([...errors, ...toRowErrors(rowIndex, decoded.left)]);
    row = decoded.right;
  }
  const identity = effectiveIdentity(row);
  const remaining = Money.toMinor(row.remaining_amount, row.currency);
  if (Either.isLeft(remaining)) {
    errors.push({ row_index: rowIndex, field: "remaining_amount", reason: remaining.left.message });
  }
  let plan: PaymentPlan.MinorPlan | null = null;
  if (row.payment_plan !== undefined && Either.isRight(remaining)) {
    const checked = PaymentPlan.checkPlan(row.payment_plan, remaining.right, row.currency);
    if (Either.isLeft(checked)) {
      for (const error of checked.left) {
        const field = error.path === "" ? "payment_plan" : `payment_plan.${error.path}`;
        errors.push({ row_index: rowIndex, field, reason: error.message });
      }
    } else plan = checked.right;
  }
  if (identity === undefined || Either.isLeft(remaining) || errors.length > 0) return Either.left(errors);
  return Either.right({
    rowIndex,
    identity,
    stream: streamOf(identity),
    internalId: nullable(row.internal_id),
    invoiceReference: nullable(row.invoice_reference),
    remainingMinor: remaining.right,
    currency: row.currency,
    firstname: nullable(row.firstname),
    lastname: nullable(row.lastname),
    email: nullable(row.email),
    phone: nullable(row.phone),
    paymentPlan: plan,
  });
};

/**
 * Validates raw rows one by one (shape, unknown keys, identity, exact amount,
 * payment plan). Rows are numbered from `firstRowIndex` so that chunk errors
 * carry snapshot-wide indexes. Rules spanning rows are in `checkAcrossRows`.
 */
export const validateRows = (
  rows: ReadonlyArray<unknown>,
  options: { readonly firstRowIndex: number },
): { readonly rows: Array<ValidRow>; readonly errors: Array<RowError> } => {
  const valid: Array<ValidRow> = [];
  const errors: Array<RowError> = [];
  rows.forEach((raw, i) => {
    const result = validateRow(raw, options.firstRowIndex + i, errors.length < MAX_DETAILED_ROW_ERRORS);
    if (Either.isRight(result)) valid.push(result.right);
    else errors.push(...result.left);
  });
  return { rows: valid, errors };
};
