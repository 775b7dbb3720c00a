import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as DebtStatus from "../src/DebtStatus.ts";
import * as PaymentPlan from "../src/PaymentPlan.ts";
import * as Reconciliation from "../src/Reconciliation.ts";
import type * as Snapshot from "../src/Snapshot.ts";
import { restating, snapshotFor, stateCase } from "./arbitraries.ts";
import { planned, rowsOf } from "./fixtures.ts";

const runs = { numRuns: 300 };

const caseWithRows = stateCase(true).chain((state) => fc.tuple(fc.constant(state), snapshotFor(state)));

const matches = (debt: Reconciliation.CurrentDebt, row: Snapshot.ValidRow): boolean =>
  row.identity.kind === "internal_id"
    ? debt.internalId === row.identity.value
    : debt.invoiceReference === row.identity.value;

describe("reconciliation properties", () => {
  it("(a) a snapshot identical to the current state plans nothing", () => {
    const identical = stateCase(false).chain((state) =>
      fc.tuple(
        fc.constant(state),
        fc.array(fc.boolean(), { minLength: state.current.length, maxLength: state.current.length }),
      ),
    );
    fc.assert(
      fc.property(identical, ([{ current, stream }, withPlans]) => {
        const rows = rowsOf(current.map((debt, i) => restating(debt, stream, withPlans[i] ?? false)));
        const result = planned(current, rows);
        expect(Reconciliation.isEmpty(result)).toBe(true);
        expect(result.counts).toMatchObject({
          created: 0,
          updated: 0,
          unchanged: current.length,
          settled: 0,
          plans_replaced: 0,
          payments: 0,
        });
      }),
      runs,
    );
  });

  it("(b) planning again after applying the plan plans nothing", () => {
    fc.assert(
      fc.property(caseWithRows, ([{ current }, raw]) => {
        const rows = rowsOf(raw);
        const after = Reconciliation.applyPlan(current, planned(current, rows));
        const again = planned(after, rows);
        expect(Reconciliation.isEmpty(again)).toBe(true);
        expect([again.counts.created, again.counts.updated, again.counts.settled, again.counts.payments]).toEqual([
          0, 0, 0, 0,
        ]);
      }),
      runs,
    );
  });

  it("(c) every accepted plan replacement sums to its row balance, and a perturbed plan is rejected", () => {
    fc.assert(
      fc.property(caseWithRows, fc.nat(), ([{ current }, raw], pick) => {
        const rows = rowsOf(raw);
        const result = planned(current, rows);
        for (const replacement of result.planReplacements) {
          const row = rows.find((candidate) => candidate.rowIndex === replacement.rowIndex);
          if (replacement.plan.status === "active")
            expect(PaymentPlan.pendingMinor(replacement.plan)).toBe(row?.remainingMinor);
        }
        const withActivePlan = rows.filter((row) => row.paymentPlan?.status === "active");
        fc.pre(withActivePlan.length > 0);
        const target = withActivePlan[pick % withActivePlan.length];
        const perturbed = rows.map((row) =>
          row === target ? { ...row, remainingMinor: row.remainingMinor + 1 } : row,
        );
        const rejected = Reconciliation.plan(current, perturbed);
        expect(
          Reconciliation.isRejected(rejected) && rejected.errors.map((error) => [error.row_index, error.field]),
        ).toEqual([[target?.rowIndex, "payment_plan"]]);
      }),
      runs,
    );
  });

  it("(d) omitted active debts are settled and nothing else is", () => {
    fc.assert(
      fc.property(caseWithRows, ([{ current }, raw]) => {
        const rows = rowsOf(raw);
        const result = planned(current, rows);
        const expected = current
          .filter((debt) => DebtStatus.isActive(debt.status) && !rows.some((row) => matches(debt, row)))
          .map((debt) => [debt.id, debt.balanceMinor]);
        expect(result.settlements.map((s) => [s.debtId, s.paymentDeltaMinor])).toEqual(expected);
      }),
      runs,
    );
  });

  it("(e) payment records of a debt sum to its balance decrease, and status changes are allowed transitions", () => {
    fc.assert(
      fc.property(caseWithRows, ([{ current }, raw]) => {
        const result = planned(current, rowsOf(raw));
        for (const change of result.balanceChanges) {
          const fromInstallments = result.paymentsFromInstallments
            .filter((payment) => "debtId" in payment.target && payment.target.debtId === change.debtId)
            .reduce((sum, payment) => sum + payment.amountMinor, 0);
          expect(change.installmentPaymentsMinor).toBe(fromInstallments);
          expect(change.directPaymentMinor + fromInstallments).toBe(change.fromMinor - change.toMinor);
        }
        for (const change of result.statusChanges) expect(DebtStatus.canTransition(change.from, change.to)).toBe(true);
        for (const settlement of result.settlements) {
          expect(DebtStatus.canTransition(settlement.fromStatus, settlement.toStatus)).toBe(true);
        }
      }),
      runs,
    );
  });

  it("(f) planning the rows in batches, each against the debts its rows name, then settling the rest, plans the whole", () => {
    const batched = caseWithRows.chain(([state, raw]) =>
      fc.tuple(fc.constant(state), fc.constant(raw), fc.array(fc.nat(raw.length), { maxLength: 4 })),
    );
    fc.assert(
      fc.property(batched, ([{ current }, raw, cutPoints]) => {
        const rows = rowsOf(raw);
        const whole = Reconciliation.plan(current, rows);
        if (Reconciliation.isRejected(whole)) return;
        const cuts = [...cutPoints].sort((a, b) => a - b);
        const batches = [0, ...cuts].map((start, i) => rows.slice(start, [...cuts, rows.length][i]));
        const named = (batch: ReadonlyArray<Snapshot.ValidRow>) =>
          current.filter((debt) =>
            batch.some(
              (row) =>
                matches(debt, row) || (row.invoiceReference !== null && debt.invoiceReference === row.invoiceReference),
            ),
          );
        const plans = batches.map((batch) => Reconciliation.planRows(named(batch), batch));
        const accepted = plans.filter((result) => !Reconciliation.isRejected(result));
        expect(accepted).toHaveLength(plans.length);
        const rowPlans = accepted as Array<Reconciliation.ReconciliationPlan>;
        const omitted = current.filter((debt) => !rows.some((row) => matches(debt, row)));
        const settling = Reconciliation.planSettlements(omitted);
        const all = [...rowPlans, settling];
        const joined = <K extends keyof Reconciliation.ReconciliationPlan>(key: K) =>
          all.flatMap((part) => part[key] as ReadonlyArray<unknown>);
        expect(joined("balanceChanges")).toEqual(whole.balanceChanges);
        expect(joined("statusChanges")).toEqual(whole.statusChanges);
        expect(joined("settlements")).toEqual(whole.settlements);
        expect(joined("warnings")).toEqual(whole.warnings);
        expect(joined("creations")).toEqual(whole.creations);
        expect(all.map((part) => part.counts).reduce(Reconciliation.addCounts, Reconciliation.noCounts)).toEqual(
          whole.counts,
        );
      }),
      runs,
    );
  });
});
