/**
 * The snapshot reconciliation planner (DESIGN 5, contract 4.2/4.3): from a
 * campaign's current debts and a complete, validated snapshot, decide every
 * creation, balance change, status change, plan replacement, payment record
 * and settlement, in exact minor units, without touching anything. Planning
 * the state a plan produces, with the same rows, plans nothing.
 */
import * as Contact from "./Contact.ts";
import * as DebtStatus from "./DebtStatus.ts";
import * as PaymentPlan from "./PaymentPlan.ts";
import type {
  BalanceChange,
  Counts,
  Creation,
  CurrentDebt,
  InstallmentPayment,
  PlannerConfig,
  PlanRejected,
  PlanReplacement,
  PlanTarget,
  ReconciliationPlan,
  Settlement,
  StatusChange,
  Warning,
} from "./ReconciliationPlan.ts";
import { defaultConfig } from "./ReconciliationPlan.ts";
import * as Snapshot from "./Snapshot.ts";
import type { RowError, ValidRow } from "./SnapshotRow.ts";

export { applyPlan, defaultConfig, isEmpty, isRejected } from "./ReconciliationPlan.ts";
export type * from "./ReconciliationPlan.ts";
export { costlyDestinationPrefixes, isCostlyDestination } from "./Contact.ts";

/**
 * Status a matched debt takes for a snapshot balance: a zero balance pays it
 * off; a positive balance reopens a paid debt (`in_progress`); other
 * statuses are left to the collection workflow. A move the transition table
 * does not allow is planned out: the debt keeps its status (a cancelled debt
 * stays cancelled) while its balance follows the row (docs/decisions/0530).
 */
export const statusForBalance = (status: DebtStatus.Status, balanceMinor: number): DebtStatus.Status => {
  const wanted = balanceMinor === 0 ? DebtStatus.paid : status === DebtStatus.paid ? DebtStatus.inProgress : status;
  return wanted !== status && DebtStatus.canTransition(status, wanted) ? wanted : status;
};

/** An omitted debt is settled when it is active (contract 4.3 rule 1) and the table lets it be paid. */
const settles = (debt: CurrentDebt): boolean =>
  DebtStatus.isActive(debt.status) && DebtStatus.canTransition(debt.status, DebtStatus.paid);

const indexBy = (
  debts: ReadonlyArray<CurrentDebt>,
  key: (debt: CurrentDebt) => string | null,
): Map<string, CurrentDebt> => {
  const index = new Map<string, CurrentDebt>();
  for (const debt of debts) {
    const value = key(debt);
    if (value !== null && !index.has(value)) index.set(value, debt);
  }
  return index;
};

interface Indexes {
  readonly byInternalId: Map<string, CurrentDebt>;
  readonly byInvoice: Map<string, CurrentDebt>;
}

const matchOf = (indexes: Indexes, row: ValidRow): CurrentDebt | undefined =>
  row.identity.kind === "internal_id"
    ? indexes.byInternalId.get(row.identity.value)
    : indexes.byInvoice.get(row.identity.value);

/** Rules that need the current debts; any error rejects the whole snapshot. */
const checkAgainstCurrent = (indexes: Indexes, rows: ReadonlyArray<ValidRow>): Array<RowError> => {
  const errors: Array<RowError> = [];
  for (const row of rows) {
    if (row.identity.kind === "internal_id" && row.invoiceReference !== null) {
      const owner = indexes.byInvoice.get(row.invoiceReference);
      if (owner !== undefined && owner.internalId !== row.internalId) {
        errors.push({
          row_index: row.rowIndex,
          field: "invoice_reference",
          reason: `"${row.invoiceReference}" belongs to another debt`,
        });
      }
    }
    const debt = matchOf(indexes, row);
    if (debt !== undefined && debt.currency !== row.currency) {
      errors.push({
        row_index: row.rowIndex,
        field: "currency",
        reason: `is ${row.currency} but the debt is in ${debt.currency}`,
      });
    }
    const mismatch =
      row.paymentPlan === null ? undefined : PaymentPlan.sumMismatch(row.paymentPlan, row.remainingMinor, row.currency);
    if (mismatch !== undefined) errors.push({ row_index: row.rowIndex, field: "payment_plan", reason: mismatch });
  }
  return errors;
};

const installmentPayments = (
  target: PlanTarget,
  row: ValidRow,
  local: PaymentPlan.LocalPlan | null,
  incoming: PaymentPlan.MinorPlan,
): Array<InstallmentPayment> =>
  PaymentPlan.newPaidInstallments(local, incoming).map((item) => ({
    target,
    rowIndex: row.rowIndex,
    planExternalReference: incoming.externalReference,
    installmentExternalReference: item.externalReference,
    // Validated rows guarantee both on paid installments.
    externalPaymentId: item.externalPaymentId ?? "",
    amountMinor: item.amountMinor,
    paidAt: item.paidAt ?? "",
  }));

/** An incoming plan changes the debt: it differs from the active one, or cancels an existing one. */
const replacesLocal = (local: PaymentPlan.LocalPlan | null, incoming: PaymentPlan.MinorPlan): boolean =>
  incoming.status === "active" ? local === null || !PaymentPlan.equalsLocal(local, incoming) : local !== null;

/**
 * Plans rows against the debts they may match: every debt whose
 * `internalId` or `invoiceReference` a row names (a bounded batch of a
 * snapshot, or a whole campaign). Checks the rules that need the current
 * debts (an invoice reference of another debt, a currency change, a plan
 * not summing to the balance), not the rules across rows, and plans no
 * settlement: whether a debt is omitted is known only once every row of
 * the snapshot has been seen (`planSettlements`).
 */
export const planRows = (
  debts: ReadonlyArray<CurrentDebt>,
  rows: ReadonlyArray<ValidRow>,
  config: PlannerConfig = defaultConfig,
): ReconciliationPlan | PlanRejected => {
  const result = planMatching(indexesOf(debts), rows, config);
  return result._tag === "PlanRejected" ? result : result.plan;
};

const indexesOf = (debts: ReadonlyArray<CurrentDebt>): Indexes => ({
  byInternalId: indexBy(debts, (debt) => debt.internalId),
  byInvoice: indexBy(debts, (debt) => debt.invoiceReference),
});

/** A plan of rows, with the ids of the debts its rows matched. */
interface Matching {
  readonly _tag: "Matching";
  readonly plan: ReconciliationPlan;
  readonly matched: ReadonlySet<number>;
}

const planMatching = (
  indexes: Indexes,
  rows: ReadonlyArray<ValidRow>,
  config: PlannerConfig,
): Matching | PlanRejected => {
  const errors = checkAgainstCurrent(indexes, rows);
  if (errors.length > 0) return { _tag: "PlanRejected", errors };

  const creations: Array<Creation> = [];
  const balanceChanges: Array<BalanceChange> = [];
  const statusChanges: Array<StatusChange> = [];
  const planReplacements: Array<PlanReplacement> = [];
  const payments: Array<InstallmentPayment> = [];
  const warnings: Array<Warning> = [];
  const matched = new Set<number>();
  let updated = 0;
  let unchanged = 0;
  let plansKept = 0;
  let skipped = 0;

  const warnPhone = (row: ValidRow, phone: string | null): void => {
    if (phone !== null && !config.allowExpensiveDestinations && Contact.isCostlyDestination(phone)) {
      warnings.push({
        row_index: row.rowIndex,
        code: "expensive_destination",
        field: "phone",
        message: `${phone} is a costly destination; the campaign configuration does not allow contacting it`,
      });
    }
  };

  for (const row of rows) {
    const debt = matchOf(indexes, row);
    if (debt === undefined) {
      if (row.remainingMinor === 0) {
        skipped++;
        continue;
      }
      const target = { creationIndex: creations.length };
      creations.push({ rowIndex: row.rowIndex, row });
      if (row.paymentPlan !== null && replacesLocal(null, row.paymentPlan)) {
        planReplacements.push({ target, rowIndex: row.rowIndex, plan: row.paymentPlan });
        payments.push(...installmentPayments(target, row, null, row.paymentPlan));
      }
      warnPhone(row, row.phone);
      continue;
    }
    matched.add(debt.id);
    if (debt.status === DebtStatus.cancelled) {
      unchanged++;
      warnings.push({
        row_index: row.rowIndex,
        code: "debt_cancelled",
        field: row.identity.kind,
        message: `the debt "${row.identity.value}" is cancelled; the row was not applied`,
      });
      continue;
    }
    let changed = false;
    let installmentMinor = 0;
    const target = { debtId: debt.id };
    if (row.paymentPlan !== null && replacesLocal(debt.activePlan, row.paymentPlan)) {
      planReplacements.push({ target, rowIndex: row.rowIndex, plan: row.paymentPlan });
      const fromInstallments = installmentPayments(target, row, debt.activePlan, row.paymentPlan);
      for (const payment of fromInstallments) installmentMinor += payment.amountMinor;
      payments.push(...fromInstallments);
      changed = true;
    } else if (debt.activePlan !== null) {
      // The active local plan stays: the row omits `payment_plan` (rule 6), or restates it unchanged.
      plansKept++;
    }
    if (debt.balanceMinor !== row.remainingMinor || installmentMinor !== 0) {
      const paymentDeltaMinor = debt.balanceMinor - row.remainingMinor;
      balanceChanges.push({
        debtId: debt.id,
        rowIndex: row.rowIndex,
        fromMinor: debt.balanceMinor,
        toMinor: row.remainingMinor,
        paymentDeltaMinor,
        installmentPaymentsMinor: installmentMinor,
        directPaymentMinor: paymentDeltaMinor - installmentMinor,
      });
      changed = true;
    }
    const status = statusForBalance(debt.status, row.remainingMinor);
    if (status !== debt.status) {
      statusChanges.push({ debtId: debt.id, from: debt.status, to: status });
      changed = true;
    }
    if (changed) updated++;
    else unchanged++;
    warnPhone(row, row.phone ?? debt.phone);
  }

  const recordedPayments = payments.length + balanceChanges.filter((change) => change.directPaymentMinor !== 0).length;
  const plan: ReconciliationPlan = {
    _tag: "ReconciliationPlan",
    creations,
    balanceChanges,
    statusChanges,
    planReplacements,
    paymentsFromInstallments: payments,
    plansKept,
    settlements: [],
    warnings,
    counts: {
      ...noCounts,
      rows: rows.length,
      created: creations.length,
      updated,
      unchanged,
      plans_replaced: planReplacements.length,
      plans_kept: plansKept,
      payments: recordedPayments,
      skipped_zero_balance: skipped,
      warnings: warnings.length,
    },
  };
  return { _tag: "Matching", plan, matched };
};

/** Counts of a plan that does nothing. */
export const noCounts: Counts = {
  rows: 0,
  created: 0,
  updated: 0,
  unchanged: 0,
  settled: 0,
  plans_replaced: 0,
  plans_kept: 0,
  payments: 0,
  skipped_zero_balance: 0,
  warnings: 0,
};

/** The counts of two plans of one snapshot applied one after the other (every count adds up). */
export const addCounts = (a: Counts, b: Counts): Counts => ({
  rows: a.rows + b.rows,
  created: a.created + b.created,
  updated: a.updated + b.updated,
  unchanged: a.unchanged + b.unchanged,
  settled: a.settled + b.settled,
  plans_replaced: a.plans_replaced + b.plans_replaced,
  plans_kept: a.plans_kept + b.plans_kept,
  payments: a.payments + b.payments,
  skipped_zero_balance: a.skipped_zero_balance + b.skipped_zero_balance,
  warnings: a.warnings + b.warnings,
});

/**
 * Plans the settlement of debts no row of the snapshot matched (contract
 * 4.3 rule 1): each active one is paid off in full, its plan cancelled.
 * The others are left as they are.
 */
export const planSettlements = (omitted: ReadonlyArray<CurrentDebt>): ReconciliationPlan => {
  const settlements: Array<Settlement> = omitted.filter(settles).map((debt) => ({
    debtId: debt.id,
    fromMinor: debt.balanceMinor,
    paymentDeltaMinor: debt.balanceMinor,
    fromStatus: debt.status,
    toStatus: DebtStatus.paid,
    cancelsPlan: debt.activePlan !== null,
  }));
  return {
    _tag: "ReconciliationPlan",
    creations: [],
    balanceChanges: [],
    statusChanges: [],
    planReplacements: [],
    paymentsFromInstallments: [],
    plansKept: 0,
    settlements,
    warnings: [],
    counts: {
      ...noCounts,
      settled: settlements.length,
      payments: settlements.filter((settlement) => settlement.paymentDeltaMinor !== 0).length,
    },
  };
};

/**
 * Plans the reconciliation of a complete snapshot against a campaign's
 * current debts, all in memory: the reference semantics of the worker's
 * batched application (`Snapshot.checkAcrossRows`, then `planRows` over
 * every row, then `planSettlements` of the debts no row matched). Returns
 * `PlanRejected` with row errors when a cross-row rule or a rule needing
 * the current debts fails (duplicate identities, mixed streams, an invoice
 * reference of another debt, a currency change, a plan not summing to the
 * balance); otherwise the plan. Rows are `ValidRow`s from
 * `Snapshot.validateRows`.
 */
export const plan = (
  current: ReadonlyArray<CurrentDebt>,
  rows: ReadonlyArray<ValidRow>,
  config: PlannerConfig = defaultConfig,
): ReconciliationPlan | PlanRejected => {
  const indexes = indexesOf(current);
  const acrossRows = Snapshot.checkAcrossRows(rows);
  const matching = planMatching(indexes, rows, config);
  const errors = [...acrossRows, ...(matching._tag === "PlanRejected" ? matching.errors : [])];
  if (errors.length > 0 || matching._tag === "PlanRejected") {
    return { _tag: "PlanRejected", errors: errors.sort((a, b) => a.row_index - b.row_index) };
  }
  const { plan: rowsPlan, matched } = matching;
  const settled = planSettlements(current.filter((debt) => !matched.has(debt.id)));
  return {
    ...rowsPlan,
    settlements: settled.settlements,
    counts: addCounts(rowsPlan.counts, settled.counts),
  };
};
