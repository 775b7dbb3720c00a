/**
 * The campaign's current debts arrive as one JSON array per column
 * (load-current-debts.ts): rows are rebuilt in id order, whatever order the
 * aggregates saw, and columns that do not align are refused.
 */
import { describe, expect, it } from "vitest";
import { type DebtColumns, debtRowsOf } from "../src/queries/snapshots/load-current-debts.ts";

const columns = (ids: ReadonlyArray<number>): DebtColumns => [
  ids,
  ids.map((id) => `acc-${id}`),
  ids.map(() => null),
  ids.map((id) => id * 100),
  ids.map(() => "EUR"),
  ids.map(() => "status.default.pending"),
  ids.map((id) => `First${id}`),
  ids.map(() => null),
  ids.map(() => null),
  ids.map(() => null),
];

describe("campaign debts from columns", () => {
  it("pairs each column's values by position", () => {
    expect(debtRowsOf(columns([3, 7]))).toEqual([
      {
        id: 3,
        internal_id: "acc-3",
        invoice_reference: null,
        balance_minor: 300,
        currency: "EUR",
        status: "status.default.pending",
        firstname: "First3",
        lastname: null,
        email: null,
        phone: null,
      },
      {
        id: 7,
        internal_id: "acc-7",
        invoice_reference: null,
        balance_minor: 700,
        currency: "EUR",
        status: "status.default.pending",
        firstname: "First7",
        lastname: null,
        email: null,
        phone: null,
      },
    ]);
  });

  it("returns the rows in id order when the aggregates saw another order", () => {
    expect(debtRowsOf(columns([9, 2, 5])).map((row) => [row.id, row.internal_id, row.balance_minor])).toEqual([
      [2, "acc-2", 200],
      [5, "acc-5", 500],
      [9, "acc-9", 900],
    ]);
  });

  it("reads a campaign without debts (every column null) as no rows", () => {
    expect(debtRowsOf([null, null, null, null, null, null, null, null, null, null])).toEqual([]);
    expect(debtRowsOf(undefined)).toEqual([]);
  });

  it("refuses columns of different lengths", () => {
    const [ids, ...rest] = columns([1, 2]);
    expect(() => debtRowsOf([ids, ["only-one"], ...rest.slice(1)] as unknown as DebtColumns)).toThrow(
      "misaligned debt columns",
    );
  });
});
