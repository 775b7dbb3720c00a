import { Either } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as PaymentPlan from "../src/PaymentPlan.ts";
import * as Review from "../src/Review.ts";

const decisions: ReadonlyArray<Review.Decision> = ["validate", "reject"];

describe("review", () => {
  it("moves a suggested item to validated or rejected", () => {
    expect(Review.review("suggested", "validate")).toEqual(Either.right("validated"));
    expect(Review.review("suggested", "reject")).toEqual(Either.right("rejected"));
  });

  it("refuses to review an item twice, naming the status it has", () => {
    for (const status of ["validated", "rejected"] as const) {
      for (const decision of decisions) {
        const result = Review.review(status, decision);
        expect(Either.isLeft(result) && result.left).toEqual(new Review.AlreadyReviewed({ status }));
      }
    }
  });

  it("only ever leaves suggested (property)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...Review.statuses), fc.constantFrom(...decisions), (status, decision) => {
        const result = Review.review(status, decision);
        expect(Either.isRight(result)).toBe(status === "suggested");
        if (Either.isRight(result)) expect(Review.transitions[status]).toContain(result.right);
      }),
    );
  });
});

describe("effectOf", () => {
  it("resumes the timeline after every rejection", () => {
    for (const type of Review.types) {
      for (const blocking of [true, false]) {
        expect(Review.effectOf({ type, blocking }, "reject")).toEqual({ _tag: "Resume" });
      }
    }
  });

  it("gives each validated type its documented effect", () => {
    const validated = (type: Review.Type, blocking: boolean) => Review.effectOf({ type, blocking }, "validate");
    expect(validated("payment_plan", true)).toEqual({ _tag: "StartPlan" });
    expect(validated("hardship", false)).toEqual({ _tag: "Pause", days: 30, reason: "hardship" });
    expect(validated("portal_dispute", true)).toEqual({ _tag: "Dispute" });
    expect(validated("ai_dispute", true)).toEqual({ _tag: "Dispute" });
    expect(validated("portal_dispute", false)).toEqual({ _tag: "Resume" });
    expect(validated("ai_dispute", false)).toEqual({ _tag: "Resume" });
    expect(validated("objection", true)).toEqual({ _tag: "Resume" });
  });
});

describe("planOfProposal", () => {
  const proposal = {
    installments: [
      { amount_minor: 6_000, payment_date: "2026-12-01" },
      { amount_minor: 4_000, payment_date: "2027-01-01" },
    ],
  };

  it("turns a schedule adding up to the balance into an active plan", () => {
    const plan = Review.planOfProposal(proposal, "todo_abc", 10_000, "EUR");
    expect(plan).toEqual(
      Either.right({
        externalReference: "todo_abc",
        status: "active",
        installments: [
          {
            externalReference: "todo_abc-1",
            amountMinor: 6_000,
            paymentDate: "2026-12-01",
            status: "pending",
            paidAt: null,
            externalPaymentId: null,
          },
          {
            externalReference: "todo_abc-2",
            amountMinor: 4_000,
            paymentDate: "2027-01-01",
            status: "pending",
            paidAt: null,
            externalPaymentId: null,
          },
        ],
      }),
    );
  });

  it("refuses a schedule that no longer matches the balance", () => {
    const plan = Review.planOfProposal(proposal, "todo_abc", 9_000, "EUR");
    expect(Either.isLeft(plan) && plan.left.reason).toBe(
      "sum of pending installments (100.00) does not equal remaining_amount (90.00)",
    );
  });

  it("refuses content that is not a schedule", () => {
    for (const content of [
      {},
      null,
      { installments: [] },
      { installments: [{ amount_minor: 0, payment_date: "2026-12-01" }] },
    ]) {
      const plan = Review.planOfProposal(content, "todo_abc", 10_000, "EUR");
      expect(Either.isLeft(plan) && plan.left.reason).toBe("the proposal has no valid schedule");
    }
  });

  it("makes a plan whose pending installments sum to the balance whenever it accepts (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 24 }),
        fc.integer({ min: -5, max: 5 }),
        (amounts, drift) => {
          const content = {
            installments: amounts.map((amount_minor, i) => ({
              amount_minor,
              payment_date: `2027-${String((i % 12) + 1).padStart(2, "0")}-01`,
            })),
          };
          const sum = amounts.reduce((a, b) => a + b, 0);
          const plan = Review.planOfProposal(content, "r", sum + drift, "EUR");
          expect(Either.isRight(plan)).toBe(drift === 0);
          if (Either.isRight(plan)) expect(PaymentPlan.pendingMinor(plan.right)).toBe(sum);
        },
      ),
    );
  });
});
