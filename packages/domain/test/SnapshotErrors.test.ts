import { describe, expect, it } from "vitest";
import * as SnapshotErrors from "../src/SnapshotErrors.ts";

describe("SnapshotErrors", () => {
  it("reports unstorable rows with snapshot-wide indexes", () => {
    expect(SnapshotErrors.unstorableTextErrors([{ a: "fine" }, { a: "bad\u0000" }], 40)).toEqual([
      { row_index: 41, field: "a", reason: SnapshotErrors.unstorableReason },
    ]);
  });

  it("lists at most 100 row errors by row, joining reasons on one field, and counts the rest", () => {
    const errors = Array.from({ length: 103 }, (_, index) => ({ row_index: 102 - index, field: "currency", reason: "bad" }));
    errors.push({ row_index: 0, field: "currency", reason: "worse" });
    const details = SnapshotErrors.rowErrorDetails(errors);
    expect(details["rows.0.currency"]).toBe("bad; worse");
    // Row 0 holds two of the first 100 errors, so the listing ends at row 98.
    expect(details["rows.98.currency"]).toBe("bad");
    expect(details["rows.99.currency"]).toBeUndefined();
    expect(details["rows"]).toBe("4 more row error(s) not listed; the first 100 are");
  });

  it("counts the errors not given when only the first are (a count from the database)", () => {
    const first = Array.from({ length: 100 }, (_, index) => ({ row_index: index, field: "id", reason: "bad" }));
    const details = SnapshotErrors.rowErrorDetails(first, 250);
    expect(Object.keys(details)).toHaveLength(101);
    expect(details["rows"]).toBe("150 more row error(s) not listed; the first 100 are");
  });
});
