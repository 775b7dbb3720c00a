import { Either, ParseResult, Schema } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as Money from "../src/Money.ts";
import * as PaymentPlan from "../src/PaymentPlan.ts";
import { currencies, rawPlanFor } from "./arbitraries.ts";

const decode = Schema.decodeUnknownEither(PaymentPlan.PaymentPlan, { errors: "all" });

const issuesOf = (input: unknown): Array<{ path: string; message: string }> => {
  const result = decode(input);
  return Either.isLeft(result)
    ? ParseResult.ArrayFormatter.formatErrorSync(result.left).map((issue) => ({
        path: issue.path.join("."),
        message: issue.message,
      }))
    : [];
};

const installment = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  external_reference: "i1",
  amount: 50,
  payment_date: "2024-02-29",
  status: "pending",
  ...overrides,
});

const plan = (installments: Array<Record<string, unknown>>, overrides: Record<string, unknown> = {}) => ({
  external_reference: "plan-1",
  status: "active",
  installments,
  ...overrides,
});

const decoded = (input: unknown): PaymentPlan.PaymentPlan => Either.getOrThrow(decode(input));

/** The rule violations `checkPlan` reports; empty when it accepts the plan. */
const problemsOf = (input: PaymentPlan.PaymentPlan, remainingMinor: number, currency: string) =>
  Either.match(PaymentPlan.checkPlan(input, remainingMinor, currency), { onLeft: (e) => e, onRight: () => [] });

describe("PaymentPlan schema", () => {
  it("decodes a valid plan unchanged", () => {
    const input = plan([
      installment({ status: "paid", paid_at: "2024-01-31T10:00:00.123+02:00", external_payment_id: "pay-1" }),
      installment({ external_reference: "i2" }),
    ]);
    expect(decode(input)).toEqual(Either.right(input));
  });

  it("rejects unknown keys in the plan and in installments", () => {
    expect(issuesOf(plan([installment({ note: "x" })], { owner: "y" }))).toEqual([
      { path: "owner", message: 'is unexpected, expected: "external_reference" | "status" | "installments"' },
      {
        path: "installments.0.note",
        message:
          'is unexpected, expected: "external_reference" | "amount" | "payment_date" | "status" | "paid_at" | "external_payment_id"',
      },
    ]);
  });

  it("bounds the number of installments to 1..500", () => {
    expect(issuesOf(plan([]))).toEqual([{ path: "installments", message: "must contain at least 1 installment" }]);
    const many = Array.from({ length: 501 }, (_, i) => installment({ external_reference: `i${i}` }));
    expect(issuesOf(plan(many))).toEqual([{ path: "installments", message: "must contain at most 500 installments" }]);
    expect(issuesOf(plan(many.slice(0, 500)))).toEqual([]);
  });

  it("checks every installment field", () => {
    expect(
      issuesOf(
        plan(
          [
            installment({
              external_reference: "",
              amount: 0,
              payment_date: "2023-02-29",
              status: "late",
              paid_at: "2024-01-31T10:00:00",
              external_payment_id: "x".repeat(256),
            }),
          ],
          { status: "open" },
        ),
      ),
    ).toEqual([
      { path: "status", message: "must be one of: active, cancelled" },
      { path: "installments.0.external_reference", message: "must not be empty" },
      { path: "installments.0.amount", message: "must be greater than 0" },
      { path: "installments.0.payment_date", message: "must be a real calendar date in the format YYYY-MM-DD" },
      { path: "installments.0.status", message: "must be one of: pending, paid" },
      { path: "installments.0.paid_at", message: "must be an ISO 8601 date-time with an offset or Z" },
      { path: "installments.0.external_payment_id", message: "must be at most 255 characters" },
    ]);
  });

  it("accepts ISO 8601 date-times with an offset or Z only", () => {
    const paidAt = (value: string) => issuesOf(plan([installment({ paid_at: value })])).length;
    expect(["2024-01-31T10:00:00Z", "2024-01-31T10:00Z", "2024-01-31T23:59:59.999999-05:30"].map(paidAt)).toEqual([
      0, 0, 0,
    ]);
    expect(
      [
        "2024-01-31 10:00:00Z",
        "2024-01-31T10:00:00",
        "2024-02-30T10:00:00Z",
        "2024-01-31T24:00:00Z",
        "2024-01-31T10:60:00Z",
      ].map(paidAt),
    ).toEqual([1, 1, 1, 1, 1]);
  });
});

describe("checkPlan", () => {
  it("accepts pending installments summing exactly to the balance", () => {
    const input = decoded(plan([installment({ amount: 0.1 }), installment({ external_reference: "i2", amount: 0.2 })]));
    expect(problemsOf(input, 30, "EUR")).toEqual([]);
  });

  it("reports a sum mismatch on the plan itself", () => {
    const input = decoded(plan([installment({ amount: 100 })]));
    expect(problemsOf(input, 12345, "EUR")).toEqual([
      { path: "", message: "sum of pending installments (100.00) does not equal remaining_amount (123.45)" },
    ]);
  });

  it("requires paid_at and external_payment_id on paid installments", () => {
    const input = decoded(
      plan([installment({ status: "paid" }), installment({ external_reference: "i2", amount: 10 })]),
    );
    expect(problemsOf(input, 1000, "EUR")).toEqual([
      { path: "installments.0.paid_at", message: "is required when status is paid" },
      { path: "installments.0.external_payment_id", message: "is required when status is paid" },
    ]);
  });

  it("requires unique installment references and payment ids", () => {
    const paid = { status: "paid", paid_at: "2024-01-01T00:00:00Z", external_payment_id: "pay-1" };
    const input = decoded(
      plan([installment(paid), installment({ ...paid, external_reference: "i2" }), installment({ amount: 10 })]),
    );
    expect(problemsOf(input, 1000, "EUR")).toEqual([
      {
        path: "installments.1.external_payment_id",
        message: 'duplicate external_payment_id "pay-1" (first used by installment 0)',
      },
      {
        path: "installments.2.external_reference",
        message: 'duplicate external_reference "i1" (first used by installment 0)',
      },
    ]);
  });

  it("rejects amounts finer than the currency, without a sum error", () => {
    const input = decoded(plan([installment({ amount: 10.5 })]));
    expect(problemsOf(input, 10, "JPY")).toEqual([
      { path: "installments.0.amount", message: "has more than 0 decimal(s) for JPY" },
    ]);
  });

  it("does not require a cancelled plan to sum to the balance", () => {
    const input = decoded(plan([installment({ amount: 5 })], { status: "cancelled" }));
    expect(problemsOf(input, 99900, "EUR")).toEqual([]);
  });
});

describe("the largest amount a plan may imply", () => {
  const paidAt = { status: "paid", paid_at: "2024-01-01T00:00:00Z" };
  const largest = Money.fromMinor(Money.maxMinor, "EUR");

  it("refuses paid installments that, added to remaining_amount, pass the largest amount", () => {
    const input = decoded(
      plan([
        installment({ amount: largest }),
        installment({ ...paidAt, external_reference: "i2", amount: 0.01, external_payment_id: "pay-1" }),
      ]),
    );
    expect(problemsOf(input, Money.maxMinor, "EUR")).toEqual([
      {
        path: "",
        message: "remaining_amount plus the paid installments exceeds the largest amount (9999999999999.99)",
      },
    ]);
  });

  it("applies to cancelled plans too, and accepts the largest amount itself", () => {
    const paid = installment({ ...paidAt, amount: 0.02, external_payment_id: "pay-1" });
    expect(problemsOf(decoded(plan([paid], { status: "cancelled" })), Money.maxMinor - 1, "EUR")).toEqual([
      {
        path: "",
        message: "remaining_amount plus the paid installments exceeds the largest amount (9999999999999.99)",
      },
    ]);
    expect(problemsOf(decoded(plan([paid], { status: "cancelled" })), Money.maxMinor - 2, "EUR")).toEqual([]);
  });
});

describe("comparing with the local plan", () => {
  const incoming = Either.getOrThrow(
    PaymentPlan.checkPlan(
      decoded(
        plan([
          installment({ status: "paid", paid_at: "2024-01-01T00:00:00Z", external_payment_id: "pay-1" }),
          installment({ external_reference: "i2", amount: 25 }),
        ]),
      ),
      2500,
      "EUR",
    ),
  );

  it("ignores installment order but nothing else", () => {
    const local = PaymentPlan.toLocal(incoming);
    const reversed = { ...local, installments: [...local.installments].reverse() };
    expect(PaymentPlan.equalsLocal(reversed, incoming)).toBe(true);
    const [first, second] = local.installments;
    if (first === undefined || second === undefined) throw new Error("fixture");
    expect(
      PaymentPlan.equalsLocal({ ...local, installments: [first, { ...second, amountMinor: 2501 }] }, incoming),
    ).toBe(false);
    expect(PaymentPlan.equalsLocal({ ...local, externalReference: "other" }, incoming)).toBe(false);
    expect(PaymentPlan.equalsLocal({ ...local, installments: [first] }, incoming)).toBe(false);
    expect(PaymentPlan.equalsLocal(local, { ...incoming, status: "cancelled" })).toBe(false);
  });

  it("finds paid installments whose payment id is new", () => {
    expect(PaymentPlan.newPaidInstallments(null, incoming).map((item) => item.externalPaymentId)).toEqual(["pay-1"]);
    expect(PaymentPlan.newPaidInstallments(PaymentPlan.toLocal(incoming), incoming)).toEqual([]);
    expect(PaymentPlan.pendingMinor(incoming)).toBe(2500);
  });
});

describe("properties", () => {
  const planCase = fc
    .tuple(fc.constantFrom(...currencies), fc.integer({ min: 0, max: 10_000_000_000 }))
    .chain(([currency, balance]) =>
      fc.tuple(fc.constant(currency), fc.constant(balance), rawPlanFor(balance, currency, "p")),
    );

  it("a generated valid plan's pending installments sum exactly to the balance", () => {
    fc.assert(
      fc.property(planCase, ([currency, balance, raw]) => {
        const checked = PaymentPlan.checkPlan(decoded(raw), balance, currency);
        expect(Either.isRight(checked)).toBe(true);
        expect(Either.isRight(checked) && PaymentPlan.pendingMinor(checked.right)).toBe(balance);
      }),
      { numRuns: 500 },
    );
  });

  it("moving one pending amount by one minor unit breaks the sum", () => {
    fc.assert(
      fc.property(planCase, fc.nat(), fc.boolean(), ([currency, balance, raw], pick, up) => {
        const pendingIndexes = raw.installments.flatMap((item, i) => (item.status === "pending" ? [i] : []));
        fc.pre(pendingIndexes.length > 0);
        const index = pendingIndexes[pick % pendingIndexes.length] ?? 0;
        const installments = raw.installments.map((item, i) => {
          if (i !== index) return item;
          const minor = Either.getOrThrow(Money.toMinor(item.amount, currency));
          const moved = up || minor === 1 ? minor + 1 : minor - 1;
          return { ...item, amount: Money.fromMinor(moved, currency) };
        });
        const errors = problemsOf(decoded({ ...raw, installments }), balance, currency);
        expect(errors.map((error) => error.path)).toEqual([""]);
      }),
      { numRuns: 500 },
    );
  });
});
