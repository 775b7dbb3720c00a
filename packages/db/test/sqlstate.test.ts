/** The SQLSTATE predicates every caller reads PostgreSQL's error codes through. */
import { describe, expect, it } from "vitest";
import {
  isDataException,
  isLockNotAvailable,
  isRetryableConflict,
  isTransientFailure,
  isUniqueViolation,
  sqlState,
  violatedUniqueConstraint,
} from "../src/sqlstate.ts";

const pgError = (code: unknown, constraint?: string) =>
  Object.assign(new Error("pg"), { code, ...(constraint === undefined ? {} : { constraint }) });

describe("sqlstate", () => {
  it("reads only five-character codes", () => {
    expect(sqlState(pgError("22P02"))).toBe("22P02");
    expect(sqlState(pgError("ECONNRESET"))).toBeUndefined();
    expect(sqlState(pgError(23505))).toBeUndefined();
    expect(sqlState(new Error("no code"))).toBeUndefined();
    expect(sqlState("22P02")).toBeUndefined();
  });

  it("classifies data exceptions, unique violations, conflicts and lock timeouts", () => {
    expect([isDataException(pgError("22003")), isDataException(pgError("23505"))]).toEqual([true, false]);
    expect(isUniqueViolation(pgError("23505"))).toBe(true);
    expect(violatedUniqueConstraint(pgError("23505", "debts_campaign_internal_id_key"))).toBe("debts_campaign_internal_id_key");
    expect(violatedUniqueConstraint(pgError("23503", "debts_creditor_fk"))).toBeUndefined();
    expect(violatedUniqueConstraint(pgError("23505"))).toBeUndefined();
    expect(["40001", "40P01", "55P03"].map((code) => isRetryableConflict(pgError(code)))).toEqual([true, true, false]);
    expect([isLockNotAvailable(pgError("55P03")), isLockNotAvailable(pgError("57014"))]).toEqual([true, false]);
  });

  it("counts server restarts, connection failures, conflicts and timeouts as transient, not data or key errors", () => {
    for (const code of ["57P01", "57P02", "57P03", "53300", "08000", "08001", "08003", "08006", "40001", "40P01", "57014", "55P03"]) {
      expect(isTransientFailure(pgError(code))).toBe(true);
    }
    for (const code of ["22P02", "23505", "42P01", "ECONNRESET"]) expect(isTransientFailure(pgError(code))).toBe(false);
  });
});
