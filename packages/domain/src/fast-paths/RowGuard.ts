/**
 * Fast path: replaces decoding every snapshot row with `SnapshotRow.Row`'s
 * schema, kept for snapshot submit-to-completed (docs/benchmarks.md, "Second
 * implementations: A/B"). Held equal to the schema by
 * packages/domain/test/RowGuard.test.ts (fast-check).
 *
 * A hand-written acceptance check equivalent to decoding SnapshotRow.Row,
 * used because decoding 20,000 rows through Effect Schema costs ~200 ms.
 * It may only say "valid" for input the schema accepts unchanged; on any
 * doubt it says "not sure" and the caller decodes with the schema, which
 * also produces the error messages. A property test keeps the two in step.
 */
import * as Contact from "../Contact.ts";
import * as Dates from "../Dates.ts";
import * as Money from "../Money.ts";
import * as PaymentPlan from "../PaymentPlan.ts";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isReference = (value: unknown): boolean =>
  typeof value === "string" && value.length >= 1 && value.length <= PaymentPlan.maxReferenceLength;

const isName = (value: unknown): boolean => typeof value === "string" && value.length <= Contact.maxNameLength;

const isInstallment = (item: unknown): boolean => {
  if (!isObject(item)) return false;
  let required = 0;
  for (const key of Object.keys(item)) {
    const value = item[key];
    switch (key) {
      case "external_reference":
        if (!isReference(value)) return false;
        required++;
        break;
      case "external_payment_id":
        if (!isReference(value)) return false;
        break;
      case "amount":
        if (typeof value !== "number" || !Number.isFinite(value) || !(value > 0)) return false;
        required++;
        break;
      case "payment_date":
        if (typeof value !== "string" || !Dates.isWritableDate(value)) return false;
        required++;
        break;
      case "status":
        if (value !== "pending" && value !== "paid") return false;
        required++;
        break;
      case "paid_at":
        if (typeof value !== "string" || !Dates.isWritableDateTime(value)) return false;
        break;
      default:
        return false;
    }
  }
  return required === 4;
};

const isPlan = (plan: unknown): boolean => {
  if (!isObject(plan)) return false;
  let count = 0;
  for (const key of Object.keys(plan)) {
    const value = plan[key];
    count++;
    switch (key) {
      case "external_reference":
        if (!isReference(value)) return false;
        break;
      case "status":
        if (value !== "active" && value !== "cancelled") return false;
        break;
      case "installments":
        if (!Array.isArray(value) || value.length < 1 || value.length > PaymentPlan.maxInstallments) return false;
        for (const item of value) if (!isInstallment(item)) return false;
        break;
      default:
        return false;
    }
  }
  return count === 3;
};

/**
 * Tells whether a prepared row (legacy key and nulls already dropped) is
 * surely accepted by `SnapshotRow.Row` as is. `false` means "decode it".
 */
export const isSurelyValid = (row: Json): boolean => {
  let required = 0;
  for (const key of Object.keys(row)) {
    const value = row[key];
    switch (key) {
      case "internal_id":
      case "invoice_reference":
        if (!isReference(value)) return false;
        break;
      case "remaining_amount":
        if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return false;
        required++;
        break;
      case "currency":
        if (typeof value !== "string" || !Money.isCurrencyCode(value)) return false;
        required++;
        break;
      case "firstname":
      case "lastname":
        if (!isName(value)) return false;
        break;
      case "email":
        if (typeof value !== "string" || !Contact.isEmail(value)) return false;
        break;
      case "phone":
        if (typeof value !== "string" || !Contact.isE164(value)) return false;
        break;
      case "payment_plan":
        if (!isPlan(value)) return false;
        break;
      default:
        return false;
    }
  }
  return required === 2;
};
