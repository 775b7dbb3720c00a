import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as DebtStatus from "../src/DebtStatus.ts";
import type * as PaymentPlan from "../src/PaymentPlan.ts";
import * as Reconciliation from "../src/Reconciliation.ts";
import type * as Snapshot from "../src/Snapshot.ts";
import { debt, planned, rejection, rowsOf } from "./fixtures.ts";

const account = (internalId: string, amount: number, extra: Record<string, unknown> = {}) => ({
  internal_id: internalId,
  remaining_amount: amount,
  currency: "EUR",
  ...extra,
});

const pending = (ref: string, amount: number) => ({
  external_reference: ref,
  amount,
  payment_date: "2024-03-01",
  status: "pending",
});
const paid = (ref: string, amount: number, paymentId: string) => ({
  external_reference: ref,
  amount,
  payment_date: "2024-02-01",
  status: "paid",
  paid_at: "2024-02-01T08:00:00Z",
  external_payment_id: paymentId,
});
const rawPlan = (installments: Array<unknown>, status = "active") => ({
  external_reference: "plan-1",
  status,
  installments,
});

const localPlan: PaymentPlan.LocalPlan = {
  externalReference: "plan-1",
  installments: [
    {
      externalReference: "i1",
      amountMinor: 4000,
      paymentDate: "2024-02-01",
      status: "paid",
      paidAt: "2024-02-01T08:00:00Z",
      externalPaymentId: "pay-1",
    },
    {
      externalReference: "i2",
      amountMinor: 6000,
      paymentDate: "2024-03-01",
      status: "pending",
      paidAt: null,
      externalPaymentId: null,
    },
  ],
};

describe("creations", () => {
  it("creates new identities with a positive balance and skips zero balances", () => {
    const rows = rowsOf([account("new-1", 50), account("new-2", 0)]);
    const result = planned([], rows);
    expect(result.creations).toEqual([{ rowIndex: 0, row: rows[0] }]);
    expect(result.counts).toEqual({
      rows: 2,
      created: 1,
      updated: 0,
      unchanged: 0,
      settled: 0,
      plans_replaced: 0,
      plans_kept: 0,
      payments: 0,
      skipped_zero_balance: 1,
      warnings: 0,
    });
  });

  it("installs a new row's plan and records its paid installments", () => {
    const rows = rowsOf([
      account("new-1", 60, { payment_plan: rawPlan([paid("i1", 40, "pay-1"), pending("i2", 60)]) }),
    ]);
    const result = planned([], rows);
    expect(result.planReplacements).toEqual([
      { target: { creationIndex: 0 }, rowIndex: 0, plan: rows[0]?.paymentPlan },
    ]);
    expect(result.paymentsFromInstallments).toEqual([
      {
        target: { creationIndex: 0 },
        rowIndex: 0,
        planExternalReference: "plan-1",
        installmentExternalReference: "i1",
        externalPaymentId: "pay-1",
        amountMinor: 4000,
        paidAt: "2024-02-01T08:00:00Z",
      },
    ]);
    expect(result.counts.payments).toBe(1);
  });

  it("matches invoice-stream rows on invoice_reference", () => {
    const current = [debt({ id: 1, internalId: null, invoiceReference: "inv-1", balanceMinor: 500 })];
    const result = planned(current, rowsOf([{ invoice_reference: "inv-1", remaining_amount: 5, currency: "EUR" }]));
    expect(Reconciliation.isEmpty(result)).toBe(true);
    expect(result.counts.unchanged).toBe(1);
  });
});

describe("balance changes", () => {
  it("records a decrease as a payment", () => {
    const result = planned([debt({ id: 1, balanceMinor: 10_000 })], rowsOf([account("acc-1", 75.5)]));
    expect(result.balanceChanges).toEqual([
      {
        debtId: 1,
        rowIndex: 0,
        fromMinor: 10_000,
        toMinor: 7550,
        paymentDeltaMinor: 2450,
        installmentPaymentsMinor: 0,
        directPaymentMinor: 2450,
      },
    ]);
    expect(result.statusChanges).toEqual([]);
    expect([result.counts.updated, result.counts.payments]).toEqual([1, 1]);
  });

  it("records an increase as a negative adjustment", () => {
    const result = planned([debt({ id: 1, balanceMinor: 10_000 })], rowsOf([account("acc-1", 120)]));
    expect(result.balanceChanges.map((change) => [change.paymentDeltaMinor, change.directPaymentMinor])).toEqual([
      [-2000, -2000],
    ]);
  });

  it("pays off a debt whose balance reaches zero", () => {
    const current = [debt({ id: 1 }), debt({ id: 2, status: DebtStatus.disputed })];
    const result = planned(current, rowsOf([account("acc-1", 0), account("acc-2", 0)]));
    expect(result.statusChanges).toEqual([
      { debtId: 1, from: "status.default.in_progress", to: "status.default.paid" },
      { debtId: 2, from: "status.default.disputed", to: "status.default.paid" },
    ]);
  });

  it("reopens a paid debt whose balance rises again", () => {
    const result = planned([debt({ id: 1, balanceMinor: 0, status: DebtStatus.paid })], rowsOf([account("acc-1", 30)]));
    expect(result.statusChanges).toEqual([
      { debtId: 1, from: "status.default.paid", to: "status.default.in_progress" },
    ]);
    expect(result.balanceChanges.map((change) => change.paymentDeltaMinor)).toEqual([-3000]);
  });

  it("leaves a disputed debt disputed while a balance remains", () => {
    const result = planned([debt({ id: 1, status: DebtStatus.disputed })], rowsOf([account("acc-1", 20)]));
    expect(result.statusChanges).toEqual([]);
    expect(result.balanceChanges).toHaveLength(1);
  });
});

describe("statusForBalance", () => {
  const [pending, inProgress, paymentPlan, disputed, paid, cancelled] = DebtStatus.statuses;

  it("pays off at zero, reopens a paid debt above zero and leaves the rest to the workflow", () => {
    expect(DebtStatus.statuses.map((status) => [status, Reconciliation.statusForBalance(status, 0)])).toEqual([
      [pending, paid],
      [inProgress, paid],
      [paymentPlan, paid],
      [disputed, paid],
      [paid, paid],
      [cancelled, cancelled],
    ]);
    expect(DebtStatus.statuses.map((status) => Reconciliation.statusForBalance(status, 1))).toEqual([
      pending,
      inProgress,
      paymentPlan,
      disputed,
      inProgress,
      cancelled,
    ]);
  });

  it("moves a debt only along the transition table", () => {
    fc.assert(
      fc.property(fc.constantFrom(...DebtStatus.statuses), fc.nat(), (status, balanceMinor) => {
        const next = Reconciliation.statusForBalance(status, balanceMinor);
        expect(next === status || DebtStatus.canTransition(status, next)).toBe(true);
      }),
    );
  });
});

describe("payment plans", () => {
  const withPlan = debt({ id: 1, balanceMinor: 6000, activePlan: localPlan });

  it("keeps the local plan when the row has none", () => {
    const result = planned([withPlan], rowsOf([account("acc-1", 60)]));
    expect([result.plansKept, result.counts.plans_kept, result.planReplacements.length]).toEqual([1, 1, 0]);
  });

  it("does not replace a plan with an identical one", () => {
    const result = planned(
      [withPlan],
      rowsOf([account("acc-1", 60, { payment_plan: rawPlan([pending("i2", 60), paid("i1", 40, "pay-1")]) })]),
    );
    expect(Reconciliation.isEmpty(result)).toBe(true);
    expect(result.counts.unchanged).toBe(1);
    expect([result.plansKept, result.counts.plans_kept, result.counts.plans_replaced]).toEqual([1, 1, 0]);
  });

  it("replaces a different plan and records only newly paid installments", () => {
    const rows = rowsOf([
      account("acc-1", 30, {
        payment_plan: rawPlan([paid("i1", 40, "pay-1"), paid("i2", 30, "pay-2"), pending("i3", 30)]),
      }),
    ]);
    const result = planned([withPlan], rows);
    expect(result.planReplacements).toEqual([{ target: { debtId: 1 }, rowIndex: 0, plan: rows[0]?.paymentPlan }]);
    expect(result.paymentsFromInstallments.map((payment) => [payment.externalPaymentId, payment.amountMinor])).toEqual([
      ["pay-2", 3000],
    ]);
    expect(result.balanceChanges).toEqual([
      {
        debtId: 1,
        rowIndex: 0,
        fromMinor: 6000,
        toMinor: 3000,
        paymentDeltaMinor: 3000,
        installmentPaymentsMinor: 3000,
        directPaymentMinor: 0,
      },
    ]);
    expect(result.counts.payments).toBe(1);
  });

  it("records newly paid installments even when the balance did not move", () => {
    const rows = rowsOf([
      account("acc-1", 60, {
        payment_plan: rawPlan([paid("i1", 40, "pay-1"), paid("i2", 10, "pay-2"), pending("i3", 60)]),
      }),
    ]);
    const result = planned([withPlan], rows);
    expect(result.balanceChanges).toEqual([
      {
        debtId: 1,
        rowIndex: 0,
        fromMinor: 6000,
        toMinor: 6000,
        paymentDeltaMinor: 0,
        installmentPaymentsMinor: 1000,
        directPaymentMinor: -1000,
      },
    ]);
  });

  it("cancels the local plan with a cancelled plan, and ignores one for a debt without a plan", () => {
    const cancelled = { payment_plan: rawPlan([pending("i2", 1)], "cancelled") };
    const rows = rowsOf([account("acc-1", 60, cancelled), account("acc-2", 100, cancelled)]);
    const result = planned([withPlan, debt({ id: 2 })], rows);
    expect(result.planReplacements.map((r) => [r.target, r.plan.status])).toEqual([[{ debtId: 1 }, "cancelled"]]);
    expect(Reconciliation.applyPlan([withPlan], result)[0]?.activePlan).toBeNull();
  });

  it("rejects an active plan whose pending installments miss the balance", () => {
    const [row] = rowsOf([account("acc-1", 60, { payment_plan: rawPlan([pending("i2", 60)]) })]);
    if (row === undefined || row.paymentPlan === null) throw new Error("fixture");
    const bad: Snapshot.ValidRow = { ...row, remainingMinor: 5999 };
    expect(rejection([withPlan], [bad])).toEqual([
      {
        row_index: 0,
        field: "payment_plan",
        reason: "sum of pending installments (60.00) does not equal remaining_amount (59.99)",
      },
    ]);
  });
});

describe("settlements", () => {
  it("settles omitted active debts only", () => {
    const current = [
      debt({ id: 1, balanceMinor: 700, activePlan: localPlan }),
      debt({ id: 2, status: DebtStatus.pending }),
      debt({ id: 3, status: DebtStatus.disputed }),
      debt({ id: 4, balanceMinor: 0, status: DebtStatus.paid }),
      debt({ id: 5, status: DebtStatus.cancelled }),
      debt({ id: 6, balanceMinor: 0, status: DebtStatus.paymentPlan }),
    ];
    const result = planned(current, rowsOf([account("acc-2", 100)]));
    expect(result.settlements).toEqual([
      {
        debtId: 1,
        fromMinor: 700,
        paymentDeltaMinor: 700,
        fromStatus: DebtStatus.inProgress,
        toStatus: DebtStatus.paid,
        cancelsPlan: true,
      },
      {
        debtId: 6,
        fromMinor: 0,
        paymentDeltaMinor: 0,
        fromStatus: DebtStatus.paymentPlan,
        toStatus: DebtStatus.paid,
        cancelsPlan: false,
      },
    ]);
    expect([result.counts.settled, result.counts.payments]).toEqual([2, 1]);
  });
});

describe("a later snapshot in the other stream (docs/decisions/0008)", () => {
  it("settles the debts none of its rows matches and creates its own, and the original stream undoes it", () => {
    const accounts = [debt({ id: 1, balanceMinor: 700 }), debt({ id: 2, balanceMinor: 300 })];
    const invoiceRows = rowsOf([{ invoice_reference: "inv-1", remaining_amount: 7, currency: "EUR" }]);
    const switched = planned(accounts, invoiceRows);
    expect(switched.settlements.map((settlement) => [settlement.debtId, settlement.paymentDeltaMinor])).toEqual([
      [1, 700],
      [2, 300],
    ]);
    expect(switched.creations.map((creation) => creation.row.invoiceReference)).toEqual(["inv-1"]);
    const after = Reconciliation.applyPlan(accounts, switched);

    const back = planned(after, rowsOf([account("acc-1", 7), account("acc-2", 3)]));
    expect(back.statusChanges).toEqual([
      { debtId: 1, from: DebtStatus.paid, to: DebtStatus.inProgress },
      { debtId: 2, from: DebtStatus.paid, to: DebtStatus.inProgress },
    ]);
    expect(back.balanceChanges.map((change) => change.paymentDeltaMinor)).toEqual([-700, -300]);
    expect(back.settlements.map((settlement) => [settlement.debtId, settlement.toStatus])).toEqual([
      [3, DebtStatus.paid],
    ]);
  });

  it("matches a debt stored with both identities by either", () => {
    const both = [debt({ id: 1, invoiceReference: "inv-1", balanceMinor: 700 })];
    const result = planned(both, rowsOf([{ invoice_reference: "inv-1", remaining_amount: 5, currency: "EUR" }]));
    expect([result.settlements, result.creations]).toEqual([[], []]);
    expect(result.balanceChanges.map((change) => [change.debtId, change.paymentDeltaMinor])).toEqual([[1, 200]]);
  });
});

describe("rejections", () => {
  it("rejects an invoice reference that belongs to another debt", () => {
    const current = [debt({ id: 1 }), debt({ id: 2, invoiceReference: "inv-2" })];
    expect(rejection(current, rowsOf([account("acc-1", 100, { invoice_reference: "inv-2" })]))).toEqual([
      { row_index: 0, field: "invoice_reference", reason: '"inv-2" belongs to another debt' },
    ]);
    expect(rejection(current, rowsOf([account("acc-9", 100, { invoice_reference: "inv-2" })]))).toHaveLength(1);
    expect(rejection(current, rowsOf([account("acc-2", 100, { invoice_reference: "inv-2" })]))).toEqual([]);
  });

  it("rejects a currency change", () => {
    expect(
      rejection([debt({ id: 1 })], rowsOf([{ internal_id: "acc-1", remaining_amount: 100, currency: "SEK" }])),
    ).toEqual([{ row_index: 0, field: "currency", reason: "is SEK but the debt is in EUR" }]);
  });

  it("rejects duplicate identities and mixed streams", () => {
    const rows = rowsOf([
      account("a", 1),
      account("a", 2),
      { invoice_reference: "inv", remaining_amount: 1, currency: "EUR" },
    ]);
    expect(rejection([], rows).map((error) => [error.row_index, error.field])).toEqual([
      [1, "internal_id"],
      [2, "internal_id"],
    ]);
  });
});

describe("warnings", () => {
  it("warns about costly destinations of created and matched rows but keeps them", () => {
    const current = [debt({ id: 1, phone: "+882123456789" }), debt({ id: 2, phone: "+33612345678" })];
    const rows = rowsOf([account("acc-1", 90), account("acc-2", 100), account("new", 5, { phone: "+3389123456" })]);
    const result = planned(current, rows);
    expect(result.warnings).toEqual([
      {
        row_index: 0,
        code: "expensive_destination",
        field: "phone",
        message: "+882123456789 is a costly destination; the campaign configuration does not allow contacting it",
      },
      {
        row_index: 2,
        code: "expensive_destination",
        field: "phone",
        message: "+3389123456 is a costly destination; the campaign configuration does not allow contacting it",
      },
    ]);
    expect([result.creations.length, result.balanceChanges.length, result.counts.warnings]).toEqual([1, 1, 2]);
    expect(planned(current, rows, { allowExpensiveDestinations: true }).warnings).toEqual([]);
  });

  it("names the costly prefixes", () => {
    expect(Reconciliation.costlyDestinationPrefixes).toEqual([
      "+881",
      "+882",
      "+883",
      "+870",
      "+1900",
      "+449",
      "+3389",
    ]);
    expect(["+19005550100", "+447911123456", "+449091234567"].map(Reconciliation.isCostlyDestination)).toEqual([
      true,
      false,
      true,
    ]);
  });

  it("leaves a cancelled debt untouched and says so", () => {
    const result = planned([debt({ id: 1, status: DebtStatus.cancelled })], rowsOf([account("acc-1", 0)]));
    expect(Reconciliation.isEmpty(result)).toBe(true);
    expect(result.warnings).toEqual([
      {
        row_index: 0,
        code: "debt_cancelled",
        field: "internal_id",
        message: 'the debt "acc-1" is cancelled; the row was not applied',
      },
    ]);
  });
});

describe("applyPlan", () => {
  it("produces the state the plan describes", () => {
    const current = [debt({ id: 4, balanceMinor: 0, status: DebtStatus.paid }), debt({ id: 7, activePlan: localPlan })];
    const rows = rowsOf([
      account("acc-4", 12.5),
      account("new", 60, {
        invoice_reference: "inv-n",
        phone: "+33612345678",
        payment_plan: rawPlan([pending("i", 60)]),
      }),
    ]);
    const after = Reconciliation.applyPlan(current, planned(current, rows));
    expect(after).toEqual([
      debt({ id: 4, balanceMinor: 1250, status: DebtStatus.inProgress }),
      debt({ id: 7, balanceMinor: 0, status: DebtStatus.paid }),
      {
        id: 8,
        internalId: "new",
        invoiceReference: "inv-n",
        balanceMinor: 6000,
        currency: "EUR",
        status: DebtStatus.pending,
        phone: "+33612345678",
        activePlan: {
          externalReference: "plan-1",
          installments: [
            {
              externalReference: "i",
              amountMinor: 6000,
              paymentDate: "2024-03-01",
              status: "pending",
              paidAt: null,
              externalPaymentId: null,
            },
          ],
        },
      },
    ]);
  });
});
