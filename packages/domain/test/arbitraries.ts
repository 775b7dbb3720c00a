// Shared fast-check generators: payment plans, consistent campaign states and snapshots for them.
import fc from "fast-check";
import * as DebtStatus from "../src/DebtStatus.ts";
import * as Money from "../src/Money.ts";
import * as PaymentPlan from "../src/PaymentPlan.ts";
import type { CurrentDebt } from "../src/ReconciliationPlan.ts";
import type { Stream } from "../src/SnapshotRow.ts";

export const currencies = ["EUR", "JPY", "KWD", "SEK"] as const;

/** `total` split into `parts` positive integers (requires total >= parts >= 1). */
export const splitInto = (total: number, parts: number): fc.Arbitrary<Array<number>> =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: Math.max(1, total - 1) }), { minLength: parts - 1, maxLength: parts - 1 })
    .map((cuts) => {
      const points = [0, ...cuts.sort((a, b) => a - b), total];
      return points.slice(1).map((point, i) => point - (points[i] ?? 0));
    });

export const isoDate = (dayOffset: number): string =>
  new Date(Date.UTC(2024, 0, 1 + dayOffset)).toISOString().slice(0, 10);

export interface RawInstallment {
  external_reference: string;
  amount: number;
  payment_date: string;
  status: "pending" | "paid";
  paid_at?: string;
  external_payment_id?: string;
}

export interface RawPlan {
  external_reference: string;
  status: "active" | "cancelled";
  installments: Array<RawInstallment>;
}

/** A valid active plan (as JSON) whose pending installments sum to `balanceMinor`. */
export const rawPlanFor = (balanceMinor: number, currency: string, reference: string): fc.Arbitrary<RawPlan> => {
  const pendingCount = balanceMinor === 0 ? fc.constant(0) : fc.integer({ min: 1, max: Math.min(6, balanceMinor) });
  return fc
    .tuple(
      pendingCount,
      fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: balanceMinor === 0 ? 1 : 0, maxLength: 3 }),
    )
    .chain(([count, paid]) =>
      fc.tuple(
        count === 0 ? fc.constant<Array<number>>([]) : splitInto(balanceMinor, count),
        fc.constant(paid),
        fc.integer({ min: 0, max: 400 }),
      ),
    )
    .map(([pending, paid, firstDay]) => {
      const paidItems: Array<RawInstallment> = paid.map((minor, i) => ({
        external_reference: `${reference}-paid-${i}`,
        amount: Money.fromMinor(minor, currency),
        payment_date: isoDate(firstDay + i),
        status: "paid",
        paid_at: `${isoDate(firstDay + i)}T10:00:00Z`,
        external_payment_id: `${reference}-pay-${i}`,
      }));
      const pendingItems: Array<RawInstallment> = pending.map((minor, i) => ({
        external_reference: `${reference}-due-${i}`,
        amount: Money.fromMinor(minor, currency),
        payment_date: isoDate(firstDay + 30 * (i + 1)),
        status: "pending",
      }));
      return { external_reference: reference, status: "active", installments: [...paidItems, ...pendingItems] };
    });
};

export const phones = [null, "+33612345678", "+88112345678", "+447700900123", "+19005550123"] as const;

/** The JSON form of a local plan, as a client would send it back. */
export const rawOfLocal = (plan: PaymentPlan.LocalPlan, currency: string): RawPlan => ({
  external_reference: plan.externalReference,
  status: "active",
  installments: plan.installments.map((item) => ({
    external_reference: item.externalReference,
    amount: Money.fromMinor(item.amountMinor, currency),
    payment_date: item.paymentDate,
    status: item.status,
    ...(item.paidAt === null ? {} : { paid_at: item.paidAt }),
    ...(item.externalPaymentId === null ? {} : { external_payment_id: item.externalPaymentId }),
  })),
});

const localOf = (raw: RawPlan, balanceMinor: number, currency: string): PaymentPlan.LocalPlan => {
  const checked = PaymentPlan.checkPlan(raw, balanceMinor, currency);
  if (checked._tag === "Left") throw new Error(`generator made an invalid plan: ${JSON.stringify(checked.left)}`);
  return PaymentPlan.toLocal(checked.right);
};

const balance = fc.oneof(
  { arbitrary: fc.constant(0), weight: 1 },
  { arbitrary: fc.integer({ min: 1, max: 1_000_000_000 }), weight: 4 },
);

/** One consistent current debt: zero balance means paid or cancelled; a plan's pending sum is the balance. */
const currentDebt = (id: number, kind: Stream, currency: string): fc.Arbitrary<CurrentDebt> =>
  fc
    .record({
      balanceMinor: balance,
      pick: fc.nat(),
      hasInvoice: fc.boolean(),
      phone: fc.constantFrom(...phones),
      withPlan: fc.boolean(),
    })
    .chain(({ balanceMinor, pick, hasInvoice, phone, withPlan }) => {
      const options: ReadonlyArray<DebtStatus.Status> =
        balanceMinor === 0
          ? [DebtStatus.paid, DebtStatus.cancelled]
          : [
              DebtStatus.pending,
              DebtStatus.inProgress,
              DebtStatus.paymentPlan,
              DebtStatus.disputed,
              DebtStatus.cancelled,
            ];
      const plan =
        withPlan && balanceMinor > 0
          ? rawPlanFor(balanceMinor, currency, `local-${id}`).map((raw) => localOf(raw, balanceMinor, currency))
          : fc.constant(null);
      return plan.map((activePlan): CurrentDebt => ({
        id,
        internalId: kind === "account" ? `acc-${id}` : null,
        invoiceReference: kind === "invoice" || hasInvoice ? `inv-${id}` : null,
        balanceMinor,
        currency,
        status: options[pick % options.length] ?? DebtStatus.pending,
        activePlan,
        phone,
      }));
    });

export interface StateCase {
  readonly currency: string;
  readonly stream: Stream;
  readonly current: ReadonlyArray<CurrentDebt>;
}

/** A campaign state; with `mixed`, some debts belong to the other stream. */
export const stateCase = (mixed: boolean): fc.Arbitrary<StateCase> =>
  fc
    .record({
      currency: fc.constantFrom(...currencies),
      stream: fc.constantFrom<Stream>("account", "invoice"),
      kinds: fc.array(fc.boolean(), { maxLength: 12 }),
    })
    .chain(({ currency, stream, kinds }) => {
      const other: Stream = stream === "account" ? "invoice" : "account";
      const debts = kinds.map((flip, i) => currentDebt(i + 1, mixed && flip ? other : stream, currency));
      return fc.tuple(...debts).map((current) => ({ currency, stream, current }));
    });

/** The raw row that restates a debt exactly (optionally restating its plan too). */
export const restating = (debt: CurrentDebt, stream: Stream, withPlan: boolean): Record<string, unknown> => ({
  ...(stream === "account" ? { internal_id: debt.internalId } : {}),
  ...(debt.invoiceReference === null ? {} : { invoice_reference: debt.invoiceReference }),
  remaining_amount: Money.fromMinor(debt.balanceMinor, debt.currency),
  currency: debt.currency,
  ...(debt.phone === null ? {} : { phone: debt.phone }),
  ...(withPlan && debt.activePlan !== null ? { payment_plan: rawOfLocal(debt.activePlan, debt.currency) } : {}),
});

type PlanChoice = "none" | "fresh" | "cancelled" | "local";

const rowPlan = (
  choice: PlanChoice,
  balanceMinor: number,
  currency: string,
  reference: string,
  local: PaymentPlan.LocalPlan | null,
) => {
  if (choice === "local" && local !== null) return fc.constant<RawPlan | undefined>(rawOfLocal(local, currency));
  if (choice === "fresh") return rawPlanFor(balanceMinor, currency, reference).map((plan): RawPlan | undefined => plan);
  if (choice === "cancelled") {
    return rawPlanFor(balanceMinor, currency, reference).map((plan): RawPlan | undefined => ({
      ...plan,
      status: "cancelled",
    }));
  }
  return fc.constant<RawPlan | undefined>(undefined);
};

/** A raw row for an existing debt (same identity and currency) with a random balance and plan. */
const rowForDebt = (debt: CurrentDebt, stream: Stream, n: number) =>
  fc
    .record({
      balanceMinor: fc.oneof(fc.constant(debt.balanceMinor), balance),
      choice: fc.constantFrom<PlanChoice>("none", "fresh", "cancelled", "local"),
      phone: fc.constantFrom(...phones),
      newInvoice: fc.boolean(),
    })
    .chain(({ balanceMinor, choice, phone, newInvoice }) =>
      rowPlan(
        choice,
        balanceMinor,
        debt.currency,
        `row-${n}`,
        balanceMinor === debt.balanceMinor ? debt.activePlan : null,
      ).map((plan) => {
        const invoice = debt.invoiceReference ?? (stream === "account" && newInvoice ? `new-inv-${n}` : null);
        return {
          ...(stream === "account" ? { internal_id: debt.internalId } : {}),
          ...(invoice === null ? {} : { invoice_reference: invoice }),
          remaining_amount: Money.fromMinor(balanceMinor, debt.currency),
          currency: debt.currency,
          ...(phone === null ? {} : { phone }),
          ...(plan === undefined ? {} : { payment_plan: plan }),
        };
      }),
    );

/** A raw row for a new identity. */
const rowForNew = (stream: Stream, currency: string, n: number) =>
  fc
    .record({
      balanceMinor: balance,
      choice: fc.constantFrom<PlanChoice>("none", "fresh", "cancelled"),
      phone: fc.constantFrom(...phones),
      withInvoice: fc.boolean(),
    })
    .chain(({ balanceMinor, choice, phone, withInvoice }) =>
      rowPlan(choice, balanceMinor, currency, `row-${n}`, null).map((plan) => ({
        ...(stream === "account" ? { internal_id: `new-acc-${n}` } : {}),
        ...(stream === "invoice" || withInvoice ? { invoice_reference: `new-inv-${n}` } : {}),
        remaining_amount: Money.fromMinor(balanceMinor, currency),
        currency,
        ...(phone === null ? {} : { phone }),
        ...(plan === undefined ? {} : { payment_plan: plan }),
      })),
    );

/** Debts a row of `stream` can match. */
export const matchable = (current: ReadonlyArray<CurrentDebt>, stream: Stream): ReadonlyArray<CurrentDebt> =>
  current.filter((debt) => (stream === "account" ? debt.internalId !== null : debt.invoiceReference !== null));

/** Valid raw rows for a state: some of its matchable debts, in random order with new identities. */
export const snapshotFor = ({ current, stream, currency }: StateCase): fc.Arbitrary<Array<Record<string, unknown>>> =>
  fc
    .tuple(fc.subarray([...matchable(current, stream)]), fc.integer({ min: 0, max: 5 }))
    .chain(([included, newCount]) => {
      const rows = [
        ...included.map((debt, i) => rowForDebt(debt, stream, i)),
        ...Array.from({ length: newCount }, (_, j) => rowForNew(stream, currency, included.length + j)),
      ];
      return fc.tuple(...rows);
    })
    .chain((rows) => fc.shuffledSubarray(rows, { minLength: rows.length, maxLength: rows.length }));
