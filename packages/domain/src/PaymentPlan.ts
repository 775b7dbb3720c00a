/**
 * Payment plans as a snapshot row carries them (contract 2.9, 4.3 rules 5-7)
 * and their exact validation against the row's balance. A plan in a row
 * replaces the debt's active local plan; an `active` plan must have pending
 * installments summing exactly to `remaining_amount`. A `cancelled` plan has
 * no sum requirement: it cancels the debt's active local plan (and does
 * nothing when the debt has none).
 */
import { Either, Schema } from "effect";
import * as Dates from "./Dates.ts";
import * as Money from "./Money.ts";

/** Longest external reference or payment id. */
export const maxReferenceLength = 255;

/** Schema of an external reference: a string of 1 to 255 characters. */
export const Reference = Schema.String.annotations({ message: () => "must be a string" }).pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(maxReferenceLength, { message: () => `must be at most ${maxReferenceLength} characters` }),
);

export const installmentStatuses = ["pending", "paid"] as const;
export type InstallmentStatus = (typeof installmentStatuses)[number];

export const planStatuses = ["active", "cancelled"] as const;
export type PlanStatus = (typeof planStatuses)[number];

export const maxInstallments = 500;

/** One installment of a snapshot plan. Unknown keys are rejected. */
export const Installment = Schema.Struct({
  external_reference: Reference,
  amount: Schema.Number.annotations({ message: () => "must be a number" }).pipe(
    Schema.finite({ message: () => "must be a finite number" }),
    Schema.greaterThan(0, { message: () => "must be greater than 0" }),
  ),
  payment_date: Dates.PlainDate,
  status: Schema.Literal(...installmentStatuses).annotations({
    message: () => ({ message: "must be one of: pending, paid", override: true }),
  }),
  paid_at: Schema.optionalWith(Dates.IsoDateTime, { exact: true }),
  external_payment_id: Schema.optionalWith(Reference, { exact: true }),
}).annotations({ identifier: "PaymentPlanInstallment", parseOptions: { onExcessProperty: "error" } });
export type Installment = typeof Installment.Type;

/** The `payment_plan` object of a snapshot row. Unknown keys are rejected. */
export const PaymentPlan = Schema.Struct({
  external_reference: Reference,
  status: Schema.Literal(...planStatuses).annotations({
    message: () => ({ message: "must be one of: active, cancelled", override: true }),
  }),
  installments: Schema.Array(Installment).pipe(
    Schema.minItems(1, { message: () => "must contain at least 1 installment" }),
    Schema.maxItems(maxInstallments, { message: () => `must contain at most ${maxInstallments} installments` }),
  ),
}).annotations({ identifier: "PaymentPlan", parseOptions: { onExcessProperty: "error" } });
export type PaymentPlan = typeof PaymentPlan.Type;

/** An installment with its amount in minor units, as stored locally. */
export interface LocalInstallment {
  readonly externalReference: string;
  readonly amountMinor: number;
  readonly paymentDate: string;
  readonly status: InstallmentStatus;
  readonly paidAt: string | null;
  readonly externalPaymentId: string | null;
}

/** A debt's active local plan. */
export interface LocalPlan {
  readonly externalReference: string;
  readonly installments: ReadonlyArray<LocalInstallment>;
}

/** A validated incoming plan in minor units. */
export interface MinorPlan extends LocalPlan {
  readonly status: PlanStatus;
}

/** A rule violation; `path` is relative to the plan (`""` is the plan itself). */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

/**
 * Validates a decoded plan against the row's balance and converts it to
 * minor units. Rules: paid installments carry `paid_at` and
 * `external_payment_id`; installment references and payment ids are unique
 * within the plan; amounts fit the currency; an active plan's pending
 * installments sum exactly to `remainingMinor`; `remainingMinor` plus the
 * paid installments is at most `Money.maxMinor`.
 */
export const checkPlan = (
  plan: PaymentPlan,
  remainingMinor: number,
  currency: string,
): Either.Either<MinorPlan, ReadonlyArray<FieldError>> => {
  const errors: Array<FieldError> = [];
  const references = new Map<string, number>();
  const paymentIds = new Map<string, number>();
  const installments: Array<LocalInstallment> = [];
  let amountsValid = true;
  plan.installments.forEach((item, i) => {
    const at = `installments.${i}`;
    const amount = Money.toMinor(item.amount, currency);
    if (Either.isLeft(amount)) {
      amountsValid = false;
      errors.push({ path: `${at}.amount`, message: amount.left.message });
    }
    const paidAt = item.paid_at ?? null;
    const paymentId = item.external_payment_id ?? null;
    if (item.status === "paid") {
      if (paidAt === null) errors.push({ path: `${at}.paid_at`, message: "is required when status is paid" });
      if (paymentId === null) {
        errors.push({ path: `${at}.external_payment_id`, message: "is required when status is paid" });
      }
    }
    const firstReference = references.get(item.external_reference);
    if (firstReference === undefined) references.set(item.external_reference, i);
    else {
      errors.push({
        path: `${at}.external_reference`,
        message: `duplicate external_reference "${item.external_reference}" (first used by installment ${firstReference})`,
      });
    }
    if (paymentId !== null) {
      const firstPayment = paymentIds.get(paymentId);
      if (firstPayment === undefined) paymentIds.set(paymentId, i);
      else {
        errors.push({
          path: `${at}.external_payment_id`,
          message: `duplicate external_payment_id "${paymentId}" (first used by installment ${firstPayment})`,
        });
      }
    }
    installments.push({
      externalReference: item.external_reference,
      amountMinor: Either.getOrElse(amount, () => 0),
      paymentDate: item.payment_date,
      status: item.status,
      paidAt,
      externalPaymentId: paymentId,
    });
  });
  const minorPlan: MinorPlan = { externalReference: plan.external_reference, status: plan.status, installments };
  const mismatch = amountsValid ? sumMismatch(minorPlan, remainingMinor, currency) : undefined;
  if (mismatch !== undefined) errors.push({ path: "", message: mismatch });
  // The debt this plan describes owes its balance plus what was already paid: a creation stores that as its
  // amount, and an update's direct payment is the balance change minus the paid part. Both must stay within
  // the largest amount, or their sums leave exact (safe-integer) arithmetic and the apply cannot write them.
  if (amountsValid && remainingMinor + paidMinor(minorPlan) > Money.maxMinor) {
    errors.push({
      path: "",
      message: `remaining_amount plus the paid installments exceeds the largest amount (${Money.format(Money.maxMinor, currency)})`,
    });
  }
  return errors.length > 0 ? Either.left(errors) : Either.right(minorPlan);
};

/**
 * The sum rule alone: why an active plan's pending installments do not add
 * up to `remainingMinor`, or `undefined` when they do (or the plan is cancelled).
 */
export const sumMismatch = (plan: MinorPlan, remainingMinor: number, currency: string): string | undefined => {
  if (plan.status !== "active") return undefined;
  const sum = pendingMinor(plan);
  return sum === remainingMinor
    ? undefined
    : `sum of pending installments (${Money.format(sum, currency)}) does not equal remaining_amount (${Money.format(remainingMinor, currency)})`;
};

/** Sum of the paid installments of a plan, in minor units. */
export const paidMinor = (plan: LocalPlan): number =>
  plan.installments.reduce((sum, item) => (item.status === "paid" ? sum + item.amountMinor : sum), 0);

/** Sum of the pending installments of a plan, in minor units. */
export const pendingMinor = (plan: LocalPlan): number =>
  plan.installments.reduce((sum, item) => (item.status === "pending" ? sum + item.amountMinor : sum), 0);

const sameInstallment = (a: LocalInstallment, b: LocalInstallment): boolean =>
  a.amountMinor === b.amountMinor &&
  a.paymentDate === b.paymentDate &&
  a.status === b.status &&
  a.paidAt === b.paidAt &&
  a.externalPaymentId === b.externalPaymentId;

/**
 * Tells whether an incoming active plan says exactly what the local plan
 * says. Installments are matched by external reference (unique within a
 * plan), so their order does not matter.
 */
export const equalsLocal = (local: LocalPlan, incoming: MinorPlan): boolean => {
  if (incoming.status !== "active" || local.externalReference !== incoming.externalReference) return false;
  if (local.installments.length !== incoming.installments.length) return false;
  const byReference = new Map(local.installments.map((item) => [item.externalReference, item]));
  return incoming.installments.every((item) => {
    const mine = byReference.get(item.externalReference);
    return mine !== undefined && sameInstallment(mine, item);
  });
};

/** Paid installments of `incoming` whose payment id is not already among the local plan's paid installments. */
export const newPaidInstallments = (local: LocalPlan | null, incoming: MinorPlan): ReadonlyArray<LocalInstallment> => {
  const known = new Set<string>();
  for (const item of local?.installments ?? []) {
    if (item.status === "paid" && item.externalPaymentId !== null) known.add(item.externalPaymentId);
  }
  return incoming.installments.filter(
    (item) => item.status === "paid" && item.externalPaymentId !== null && !known.has(item.externalPaymentId),
  );
};

/** The local form of an incoming plan (drops the plan status). */
export const toLocal = (plan: MinorPlan): LocalPlan => ({
  externalReference: plan.externalReference,
  installments: plan.installments,
});
