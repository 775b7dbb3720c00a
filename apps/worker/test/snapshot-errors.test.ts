/** Which failures of an apply are retried at once, retried later or final (docs/decisions/0353, 0354). */
import { ConcurrentDebtChange } from "@dc/db";
import { DebtStatus } from "@dc/domain";
import { describe, expect, it } from "vitest";
import { isPermanent, isTransactionConflict, SnapshotUnprocessable } from "../src/snapshots/errors.ts";

const pgError = (code: string, constraint?: string) =>
  Object.assign(new Error(`pg ${code}`), { code, ...(constraint === undefined ? {} : { constraint }) });

describe("isTransactionConflict", () => {
  it("retries at once serialization failures, deadlocks and changes under the plan", () => {
    expect(isTransactionConflict(pgError("40001"))).toBe(true);
    expect(isTransactionConflict(pgError("40P01"))).toBe(true);
    expect(isTransactionConflict(new ConcurrentDebtChange("a plan ended since the read"))).toBe(true);
  });

  it("retries at once a new debt whose campaign identity another debt took since the read", () => {
    expect(isTransactionConflict(pgError("23505", "debts_campaign_internal_id_key"))).toBe(true);
    expect(isTransactionConflict(pgError("23505", "debts_campaign_invoice_reference_key"))).toBe(true);
  });

  it("leaves other failures to graphile-worker's retries or to failing the snapshot", () => {
    expect(isTransactionConflict(pgError("23505", "payments_external_id_key"))).toBe(false);
    expect(isTransactionConflict(pgError("23505"))).toBe(false);
    expect(isTransactionConflict(pgError("57P01"))).toBe(false);
    expect(isTransactionConflict(new Error("connection lost"))).toBe(false);
  });
});

describe("isPermanent", () => {
  it("fails at once a stored snapshot that cannot be applied, a plan against the status table and data exceptions", () => {
    expect(isPermanent(new SnapshotUnprocessable({ message: "chunk 1 is missing" }))).toBe(true);
    expect(isPermanent(pgError("22003"))).toBe(true);
    const illegal = new DebtStatus.IllegalTransition({ debtId: 1, from: DebtStatus.paid, to: DebtStatus.pending });
    expect(isPermanent(illegal)).toBe(true);
    expect(isTransactionConflict(illegal)).toBe(false);
    expect(isPermanent(pgError("40P01"))).toBe(false);
  });
});
