// Builders for reconciliation tests: current debts and validated rows.
import { expect } from "vitest";
import * as DebtStatus from "../src/DebtStatus.ts";
import * as Reconciliation from "../src/Reconciliation.ts";
import * as Snapshot from "../src/Snapshot.ts";

export const debt = (overrides: Partial<Reconciliation.CurrentDebt> & { id: number }): Reconciliation.CurrentDebt => ({
  internalId: `acc-${overrides.id}`,
  invoiceReference: null,
  balanceMinor: 10_000,
  currency: "EUR",
  status: DebtStatus.inProgress,
  activePlan: null,
  phone: null,
  ...overrides,
});

/** Validates raw rows, failing the test on any per-row error. */
export const rowsOf = (raw: ReadonlyArray<unknown>): Array<Snapshot.ValidRow> => {
  const result = Snapshot.validateRows(raw, { firstRowIndex: 0 });
  expect(result.errors).toEqual([]);
  return result.rows;
};

/** Plans and fails the test when the snapshot is rejected. */
export const planned = (
  current: ReadonlyArray<Reconciliation.CurrentDebt>,
  rows: ReadonlyArray<Snapshot.ValidRow>,
  config?: Reconciliation.PlannerConfig,
): Reconciliation.ReconciliationPlan => {
  const result = Reconciliation.plan(current, rows, config);
  if (Reconciliation.isRejected(result)) throw new Error(`rejected: ${JSON.stringify(result.errors)}`);
  return result;
};

/** The row errors of a rejected snapshot (empty when it was accepted). */
export const rejection = (
  current: ReadonlyArray<Reconciliation.CurrentDebt>,
  rows: ReadonlyArray<Snapshot.ValidRow>,
): ReadonlyArray<Snapshot.RowError> => {
  const result = Reconciliation.plan(current, rows);
  return Reconciliation.isRejected(result) ? result.errors : [];
};
