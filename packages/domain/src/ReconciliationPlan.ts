/**
 * What reconciling a snapshot decides, as data: the current state the
 * planner reads, the plan it produces, and `applyPlan`, the reference
 * semantics of a plan on that state (what the worker's SQL must do).
 */
import * as DebtStatus from "./DebtStatus.ts";
import * as PaymentPlan from "./PaymentPlan.ts";
import type { RowError, ValidRow } from "./SnapshotRow.ts";

/** A campaign debt as the planner sees it. */
export interface CurrentDebt {
  readonly id: number;
  readonly internalId: string | null;
  readonly invoiceReference: string | null;
  readonly balanceMinor: number;
  readonly currency: string;
  readonly status: DebtStatus.Status;
  readonly activePlan: PaymentPlan.LocalPlan | null;
  readonly phone: string | null;
}

/** Campaign configuration the planner obeys; a request cannot change it. */
export interface PlannerConfig {
  /** Whether costly phone destinations may be contacted; default false. */
  readonly allowExpensiveDestinations: boolean;
}

export const defaultConfig: PlannerConfig = { allowExpensiveDestinations: false };

/** A row that creates a debt (status `pending`, balance `row.remainingMinor`). */
export interface Creation {
  readonly rowIndex: number;
  readonly row: ValidRow;
}

/**
 * A matched debt's balance moves from `fromMinor` to `toMinor`.
 * `paymentDeltaMinor = from - to`: positive is money received, negative a
 * balance increase. Paid installments new to the debt explain
 * `installmentPaymentsMinor` of it; the rest, `directPaymentMinor`, is
 * recorded as one payment record (negative: an adjustment record), so the
 * records of a debt always sum to its balance decrease. Present when the
 * balance differs or new paid installments arrived.
 */
export interface BalanceChange {
  readonly debtId: number;
  readonly rowIndex: number;
  readonly fromMinor: number;
  readonly toMinor: number;
  readonly paymentDeltaMinor: number;
  readonly installmentPaymentsMinor: number;
  readonly directPaymentMinor: number;
}

/** A matched debt's status change (settlements carry their own). */
export interface StatusChange {
  readonly debtId: number;
  readonly from: DebtStatus.Status;
  readonly to: DebtStatus.Status;
}

/** A debt of the current state, or the debt of `creations[creationIndex]`. */
export type PlanTarget = { readonly debtId: number } | { readonly creationIndex: number };

/**
 * The row's plan becomes the debt's plan: an `active` plan replaces the
 * active local plan; a `cancelled` one cancels it (leaving none).
 */
export interface PlanReplacement {
  readonly target: PlanTarget;
  readonly rowIndex: number;
  readonly plan: PaymentPlan.MinorPlan;
}

/** A paid installment whose payment id the debt has not recorded yet. */
export interface InstallmentPayment {
  readonly target: PlanTarget;
  readonly rowIndex: number;
  readonly planExternalReference: string;
  readonly installmentExternalReference: string;
  readonly externalPaymentId: string;
  readonly amountMinor: number;
  readonly paidAt: string;
}

/** An active debt omitted from the snapshot: paid off in full. */
export interface Settlement {
  readonly debtId: number;
  readonly fromMinor: number;
  /** The whole former balance, recorded as a payment when non-zero. */
  readonly paymentDeltaMinor: number;
  readonly fromStatus: DebtStatus.Status;
  readonly toStatus: DebtStatus.Status;
  /** The debt had an active plan; settlement cancels it. */
  readonly cancelsPlan: boolean;
}

/** A non-blocking remark reported in the snapshot status after processing. */
export interface Warning {
  readonly row_index: number;
  readonly code: "expensive_destination" | "debt_cancelled";
  readonly field: string;
  readonly message: string;
}

export interface Counts {
  readonly rows: number;
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly settled: number;
  readonly plans_replaced: number;
  readonly plans_kept: number;
  /** Payment records the plan writes: installment payments, non-zero direct payments and settlements. */
  readonly payments: number;
  readonly skipped_zero_balance: number;
  readonly warnings: number;
}

export interface ReconciliationPlan {
  readonly _tag: "ReconciliationPlan";
  readonly creations: ReadonlyArray<Creation>;
  readonly balanceChanges: ReadonlyArray<BalanceChange>;
  readonly statusChanges: ReadonlyArray<StatusChange>;
  readonly planReplacements: ReadonlyArray<PlanReplacement>;
  readonly paymentsFromInstallments: ReadonlyArray<InstallmentPayment>;
  readonly plansKept: number;
  readonly settlements: ReadonlyArray<Settlement>;
  readonly warnings: ReadonlyArray<Warning>;
  readonly counts: Counts;
}

/** The snapshot cannot be applied (`invalid_snapshot_row`); nothing may change. */
export interface PlanRejected {
  readonly _tag: "PlanRejected";
  readonly errors: ReadonlyArray<RowError>;
}

/** Tells whether a planning result is a rejection. */
export const isRejected = (result: ReconciliationPlan | PlanRejected): result is PlanRejected =>
  result._tag === "PlanRejected";

/** Tells whether a plan changes nothing (warnings and skipped rows aside). */
export const isEmpty = (plan: ReconciliationPlan): boolean =>
  plan.creations.length === 0 &&
  plan.balanceChanges.length === 0 &&
  plan.statusChanges.length === 0 &&
  plan.planReplacements.length === 0 &&
  plan.paymentsFromInstallments.length === 0 &&
  plan.settlements.length === 0;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Applies a plan to the state it was computed from: the reference semantics
 * of every plan entry. Created debts get ids after the largest current id,
 * in creation order. Debtor fields other than identity and phone are not
 * modelled here.
 */
export const applyPlan = (
  current: ReadonlyArray<CurrentDebt>,
  plan: ReconciliationPlan,
): ReadonlyArray<CurrentDebt> => {
  const debts: Array<Mutable<CurrentDebt>> = current.map((debt) => ({ ...debt }));
  const byId = new Map(debts.map((debt) => [debt.id, debt]));
  const nextId = current.reduce((max, debt) => Math.max(max, debt.id), 0) + 1;
  const created: Array<Mutable<CurrentDebt>> = plan.creations.map(({ row }, i) => ({
    id: nextId + i,
    internalId: row.internalId,
    invoiceReference: row.invoiceReference,
    balanceMinor: row.remainingMinor,
    currency: row.currency,
    status: DebtStatus.initial,
    activePlan: null,
    phone: row.phone,
  }));
  const target = (t: PlanTarget): Mutable<CurrentDebt> | undefined =>
    "debtId" in t ? byId.get(t.debtId) : created[t.creationIndex];
  for (const change of plan.balanceChanges) {
    const debt = byId.get(change.debtId);
    if (debt !== undefined) debt.balanceMinor = change.toMinor;
  }
  for (const change of plan.statusChanges) {
    const debt = byId.get(change.debtId);
    if (debt !== undefined) debt.status = change.to;
  }
  for (const replacement of plan.planReplacements) {
    const debt = target(replacement.target);
    if (debt !== undefined) {
      debt.activePlan = replacement.plan.status === "active" ? PaymentPlan.toLocal(replacement.plan) : null;
    }
  }
  for (const settlement of plan.settlements) {
    const debt = byId.get(settlement.debtId);
    if (debt !== undefined) {
      debt.balanceMinor = 0;
      debt.status = settlement.toStatus;
      if (settlement.cancelsPlan) debt.activePlan = null;
    }
  }
  return [...debts, ...created];
};
