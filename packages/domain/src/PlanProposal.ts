/**
 * A debtor's payment plan proposal and the creditor's rules it must keep
 * (docs/decisions/0673): at least a minimum installment (the last one may
 * be smaller only when it is the rest), at most a number of installments,
 * the last one due within a number of days of the proposal. A proposal is
 * built from the number of installments the debtor asks for: equal monthly
 * installments from the first date chosen, the rounding put on the last, so
 * they always sum to the balance.
 */
import { Either, Schema } from "effect";

/** The company's rules, `engine_settings.payment_plans`; each is optional over the defaults. */
export const Rules = Schema.Struct({
  min_installment_minor: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true }),
  max_installments: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 60)), { exact: true }),
  max_days: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 1_830)), { exact: true }),
});
export type Rules = typeof Rules.Type;

export interface Limits {
  readonly minInstallmentMinor: number;
  readonly maxInstallments: number;
  readonly maxDays: number;
}

/** Defaults: installments of at least 20.00 in the debt's currency's minor units, 12 at most, within a year. */
export const defaultLimits: Limits = { minInstallmentMinor: 2_000, maxInstallments: 12, maxDays: 365 };

const decodeRules = Schema.decodeUnknownEither(Rules);

/** The limits of a company's stored rules; anything that does not decode reads as the defaults. */
export const limitsOf = (stored: unknown): Limits => {
  const rules = stored === null || stored === undefined ? Either.right<Rules>({}) : decodeRules(stored);
  if (Either.isLeft(rules)) return defaultLimits;
  return {
    minInstallmentMinor: rules.right.min_installment_minor ?? defaultLimits.minInstallmentMinor,
    maxInstallments: rules.right.max_installments ?? defaultLimits.maxInstallments,
    maxDays: rules.right.max_days ?? defaultLimits.maxDays,
  };
};

export interface Installment {
  readonly amount_minor: number;
  /** `YYYY-MM-DD`. */
  readonly payment_date: string;
}

export type Refusal =
  | { readonly reason: "too_many_installments"; readonly max: number }
  | { readonly reason: "installment_too_small"; readonly min: number }
  | { readonly reason: "too_long"; readonly maxDays: number }
  | { readonly reason: "first_date_in_past" }
  | { readonly reason: "nothing_owed" };

const DAY_MS = 86_400_000;

/** `date` plus `months` calendar months, clamped to the month's last day (31 January + 1 month = 28 February). */
const addMonths = (date: string, months: number): string => {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const target = new Date(Date.UTC(year, month - 1 + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, last));
  return target.toISOString().slice(0, 10);
};

/**
 * The schedule of `count` monthly installments of `balanceMinor` from
 * `firstDate`, or why the limits refuse it. `today` is `YYYY-MM-DD` of the
 * company's clock.
 */
export const propose = (
  balanceMinor: number,
  count: number,
  firstDate: string,
  today: string,
  limits: Limits,
): Either.Either<ReadonlyArray<Installment>, Refusal> => {
  if (balanceMinor <= 0) return Either.left({ reason: "nothing_owed" });
  if (!Number.isInteger(count) || count < 1 || count > limits.maxInstallments) {
    return Either.left({ reason: "too_many_installments", max: limits.maxInstallments });
  }
  if (firstDate < today) return Either.left({ reason: "first_date_in_past" });
  const base = Math.floor(balanceMinor / count);
  // A single installment is the whole balance, however small; otherwise each full installment keeps the minimum.
  if (count > 1 && base < limits.minInstallmentMinor) return Either.left({ reason: "installment_too_small", min: limits.minInstallmentMinor });
  const schedule = Array.from({ length: count }, (_, index) => ({
    amount_minor: index === count - 1 ? balanceMinor - base * (count - 1) : base,
    payment_date: addMonths(firstDate, index),
  }));
  const last = schedule[schedule.length - 1]!.payment_date;
  const days = (Date.parse(`${last}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / DAY_MS;
  if (days > limits.maxDays) return Either.left({ reason: "too_long", maxDays: limits.maxDays });
  return Either.right(schedule);
};
