import { Either } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as PlanProposal from "../src/PlanProposal.ts";

const limits = PlanProposal.defaultLimits;

describe("PlanProposal", () => {
  it("splits the balance into monthly installments that sum to it, the rest on the last", () => {
    const schedule = Either.getOrThrow(PlanProposal.propose(10_001, 3, "2027-01-31", "2027-01-10", limits));
    expect(schedule).toEqual([
      { amount_minor: 3_333, payment_date: "2027-01-31" },
      { amount_minor: 3_333, payment_date: "2027-02-28" },
      { amount_minor: 3_335, payment_date: "2027-03-31" },
    ]);
  });

  it("refuses what the creditor's rules forbid", () => {
    expect(PlanProposal.propose(10_000, 13, "2027-01-31", "2027-01-10", limits)).toEqual(
      Either.left({ reason: "too_many_installments", max: 12 }),
    );
    expect(PlanProposal.propose(3_000, 2, "2027-01-31", "2027-01-10", limits)).toEqual(
      Either.left({ reason: "installment_too_small", min: 2_000 }),
    );
    expect(PlanProposal.propose(100_000, 12, "2027-06-01", "2027-01-10", limits)).toEqual(
      Either.left({ reason: "too_long", maxDays: 365 }),
    );
    expect(PlanProposal.propose(100_000, 2, "2027-01-09", "2027-01-10", limits)).toEqual(
      Either.left({ reason: "first_date_in_past" }),
    );
    expect(Either.isRight(PlanProposal.propose(1_000, 1, "2027-01-10", "2027-01-10", limits))).toBe(true);
  });

  it("reads a company's rules over the defaults, and bad rules as the defaults", () => {
    expect(PlanProposal.limitsOf({ max_installments: 6 })).toEqual({ ...limits, maxInstallments: 6 });
    expect(PlanProposal.limitsOf({ max_installments: "six" })).toEqual(limits);
    expect(PlanProposal.limitsOf(null)).toEqual(limits);
  });

  it("every accepted schedule sums to the balance and keeps the rules", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 1, max: 12 }), (balance, count) => {
        const result = PlanProposal.propose(balance, count, "2027-02-01", "2027-01-15", limits);
        if (Either.isLeft(result)) return;
        const schedule = result.right;
        expect(schedule.reduce((sum, item) => sum + item.amount_minor, 0)).toBe(balance);
        expect(schedule).toHaveLength(count);
        if (count > 1) expect(schedule.every((item) => item.amount_minor >= limits.minInstallmentMinor)).toBe(true);
      }),
    );
  });
});
