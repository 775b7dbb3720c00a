import { Either, Schema } from "effect";
import { describe, expect, it } from "vitest";
import * as DebtStatus from "../src/DebtStatus.ts";

const [pending, inProgress, paymentPlan, disputed, paid, cancelled] = DebtStatus.statuses;

describe("filterToStatuses", () => {
  it("expands named filters", () => {
    expect(DebtStatus.filterToStatuses("active")).toEqual([pending, inProgress, paymentPlan]);
    expect(DebtStatus.filterToStatuses("paid")).toEqual(["status.default.paid"]);
    expect(DebtStatus.filterToStatuses("disputed")).toEqual(["status.default.disputed"]);
  });

  it("accepts exact status values and refuses anything else", () => {
    expect(DebtStatus.filterToStatuses("status.default.cancelled")).toEqual(["status.default.cancelled"]);
    expect(DebtStatus.filterToStatuses("pending")).toBeUndefined();
    expect(DebtStatus.filterToStatuses("")).toBeUndefined();
  });

  it("agrees with the StatusFilter schema", () => {
    const decode = Schema.decodeUnknownEither(DebtStatus.StatusFilter);
    expect(decode("active")).toEqual(Either.right("active"));
    expect(decode("status.default.in_progress")).toEqual(Either.right("status.default.in_progress"));
    expect(Either.isLeft(decode("open"))).toBe(true);
  });
});

describe("transitions", () => {
  it("follow the table", () => {
    expect(DebtStatus.transitions).toEqual({
      "status.default.pending": [inProgress, paymentPlan, disputed, paid, cancelled],
      "status.default.in_progress": [paymentPlan, disputed, paid, cancelled],
      "status.default.payment_plan": [inProgress, disputed, paid, cancelled],
      "status.default.disputed": [inProgress, paymentPlan, paid, cancelled],
      "status.default.paid": [inProgress],
      "status.default.cancelled": [],
    });
  });

  it("allow reopening a paid debt and nothing out of cancelled", () => {
    expect(DebtStatus.canTransition(paid, inProgress)).toBe(true);
    expect(DebtStatus.canTransition(paid, pending)).toBe(false);
    expect(DebtStatus.canTransition(inProgress, pending)).toBe(false);
    expect(DebtStatus.statuses.filter((to) => DebtStatus.canTransition(cancelled, to))).toEqual([]);
    expect(DebtStatus.statuses.filter((s) => DebtStatus.canTransition(s, s))).toEqual([]);
  });
});

describe("IllegalTransition", () => {
  it("names the debt and both statuses", () => {
    const error = new DebtStatus.IllegalTransition({ debtId: 7, from: paid, to: pending });
    expect(error).toBeInstanceOf(Error);
    expect(error._tag).toBe("IllegalTransition");
    expect(error.message).toBe("debt 7 may not move from status.default.paid to status.default.pending");
  });
});

describe("isActive", () => {
  it("is true for pending, in progress and payment plan only", () => {
    expect(DebtStatus.statuses.filter(DebtStatus.isActive)).toEqual([pending, inProgress, paymentPlan]);
  });

  it("starts debts as pending", () => {
    expect(DebtStatus.initial).toBe("status.default.pending");
  });
});

describe("isStatus", () => {
  it("accepts the stored status values only, not filter names", () => {
    expect(DebtStatus.statuses.every(DebtStatus.isStatus)).toBe(true);
    expect(DebtStatus.isStatus("active")).toBe(false);
    expect(DebtStatus.isStatus("status.default.archived")).toBe(false);
    expect(DebtStatus.isStatus("")).toBe(false);
  });
});
