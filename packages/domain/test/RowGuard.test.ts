import { Either, Schema } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as RowGuard from "../src/fast-paths/RowGuard.ts";
import * as SnapshotRow from "../src/SnapshotRow.ts";

const decode = Schema.decodeUnknownEither(SnapshotRow.Row, { errors: "all", onExcessProperty: "error" });

/** Mostly one of `valid`, sometimes a near miss. */
const mostly = <T>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: invalid, weight: 1 });

const text = (valid: ReadonlyArray<string>) =>
  mostly(
    fc.constantFrom(...valid),
    fc.oneof(
      fc.constant(""),
      fc.constant("x".repeat(256)),
      fc.string({ maxLength: 4 }),
      fc.integer(),
      fc.constant(null),
    ),
  );

/** Adds a key, rarely. */
const withRareKey = (record: fc.Arbitrary<Record<string, unknown>>, key: string, value: unknown) =>
  fc
    .tuple(record, fc.integer({ min: 0, max: 19 }))
    .map(([base, dice]) => (dice === 0 ? { ...base, [key]: value } : base));

const installment = withRareKey(
  fc.record(
    {
      external_reference: text(["i1", "i2"]),
      amount: mostly(fc.constantFrom(1, 0.5, 1e300), fc.oneof(fc.constantFrom(0, -1, "1"), fc.double())),
      payment_date: text(["2024-02-29", "2023-02-29", "2024-13-01", "2024-01-01"]),
      status: mostly(fc.constantFrom("pending", "paid"), fc.constantFrom("late", 1)),
      paid_at: text(["2024-01-01T00:00:00Z", "2024-01-01T00:00:00+02:00", "2024-01-01T25:00:00Z", "2024-01-01"]),
      external_payment_id: text(["pay-1"]),
    },
    { requiredKeys: ["external_reference", "amount", "payment_date", "status"] },
  ),
  "extra",
  1,
);

const plan = mostly(
  withRareKey(
    fc.record({
      external_reference: text(["p1"]),
      status: mostly(fc.constantFrom("active", "cancelled"), fc.constant("open")),
      installments: mostly(fc.array(installment, { maxLength: 3 }), fc.constant("x")),
    }),
    "extra",
    1,
  ),
  fc.constantFrom(5, "plan", [], null),
);

const row = withRareKey(
  fc.record(
    {
      internal_id: text(["acc-1"]),
      invoice_reference: text(["inv-1"]),
      remaining_amount: mostly(
        fc.constantFrom(0, 12.34, -0),
        fc.oneof(fc.constantFrom(-1, "12", Number.NaN), fc.double()),
      ),
      currency: mostly(
        fc.constantFrom("EUR", "JPY"),
        fc.oneof(fc.constantFrom("eur", "EU"), fc.string({ maxLength: 4 })),
      ),
      firstname: text(["Ada", ""]),
      lastname: text(["Lovelace"]),
      email: mostly(
        fc.constantFrom("ada@example.com", "x@y.io"),
        fc.oneof(fc.constant("a@b"), fc.emailAddress(), fc.string()),
      ),
      phone: text(["+33612345678", "+123", "0612345678"]),
      payment_plan: plan,
    },
    { requiredKeys: [] },
  ),
  "snapshot_at",
  "2024-01-01",
);

describe("RowGuard", () => {
  it("only says valid for rows the schema decodes to themselves", () => {
    let accepted = 0;
    fc.assert(
      fc.property(row, (candidate) => {
        if (RowGuard.isSurelyValid(candidate)) {
          accepted++;
          expect(decode(candidate)).toEqual(Either.right(candidate));
        }
      }),
      { numRuns: 20_000 },
    );
    // The property is not vacuous: many generated rows take the fast path.
    expect(accepted).toBeGreaterThan(500);
  });

  it("accepts ordinary valid rows so they skip schema decoding", () => {
    expect(
      RowGuard.isSurelyValid({
        internal_id: "acc-1",
        remaining_amount: 10,
        currency: "EUR",
        email: "ada@example.com",
        phone: "+33612345678",
        payment_plan: {
          external_reference: "p",
          status: "active",
          installments: [{ external_reference: "i", amount: 10, payment_date: "2024-02-29", status: "pending" }],
        },
      }),
    ).toBe(true);
    expect(RowGuard.isSurelyValid({ internal_id: "acc-1", remaining_amount: 10 })).toBe(false);
    expect(RowGuard.isSurelyValid({ internal_id: "acc-1", remaining_amount: 10, currency: "EUR", extra: 1 })).toBe(
      false,
    );
  });
});
