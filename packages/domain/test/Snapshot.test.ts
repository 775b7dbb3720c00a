import { Either, Schema } from "effect";
import { describe, expect, it } from "vitest";
import * as Snapshot from "../src/Snapshot.ts";
import * as SnapshotErrors from "../src/SnapshotErrors.ts";

const validate = (rows: ReadonlyArray<unknown>, firstRowIndex = 0) => Snapshot.validateRows(rows, { firstRowIndex });

const errorsOf = (row: unknown) => validate([row]).errors.map(({ field, reason }) => ({ field, reason }));

const paidInstallment = {
  external_reference: "i1",
  amount: 40,
  payment_date: "2024-01-15",
  status: "paid",
  paid_at: "2024-01-15T09:30:00Z",
  external_payment_id: "pay-1",
};

describe("validateRows", () => {
  it("normalises a valid row with exact minor units", () => {
    const row = {
      internal_id: "acc-1",
      invoice_reference: "inv-1",
      remaining_amount: 123.45,
      currency: "EUR",
      firstname: "Ada",
      lastname: "",
      email: "ada@example.com",
      phone: "+33612345678",
      payment_plan: {
        external_reference: "plan-1",
        status: "active",
        installments: [
          paidInstallment,
          { external_reference: "i2", amount: 123.45, payment_date: "2024-02-15", status: "pending" },
        ],
      },
    };
    expect(validate([row], 7)).toEqual({
      errors: [],
      rows: [
        {
          rowIndex: 7,
          identity: { kind: "internal_id", value: "acc-1" },
          stream: "account",
          internalId: "acc-1",
          invoiceReference: "inv-1",
          remainingMinor: 12345,
          currency: "EUR",
          firstname: "Ada",
          lastname: "",
          email: "ada@example.com",
          phone: "+33612345678",
          paymentPlan: {
            externalReference: "plan-1",
            status: "active",
            installments: [
              {
                externalReference: "i1",
                amountMinor: 4000,
                paymentDate: "2024-01-15",
                status: "paid",
                paidAt: "2024-01-15T09:30:00Z",
                externalPaymentId: "pay-1",
              },
              {
                externalReference: "i2",
                amountMinor: 12345,
                paymentDate: "2024-02-15",
                status: "pending",
                paidAt: null,
                externalPaymentId: null,
              },
            ],
          },
        },
      ],
    });
  });

  it("uses invoice_reference as identity without internal_id, and null as absent", () => {
    const result = validate([
      { invoice_reference: "inv-9", remaining_amount: 0, currency: "JPY", email: null, payment_plan: null },
    ]);
    expect(result.errors).toEqual([]);
    expect(result.rows[0]).toMatchObject({
      identity: { kind: "invoice_reference", value: "inv-9" },
      stream: "invoice",
      internalId: null,
      email: null,
      paymentPlan: null,
      remainingMinor: 0,
    });
  });

  it("ignores the legacy accept_expensive_destination key whatever its type", () => {
    for (const value of [true, "yes", 3, null, { a: 1 }, [1]]) {
      const result = validate([
        { internal_id: "a", remaining_amount: 1, currency: "EUR", accept_expensive_destination: value },
      ]);
      expect(result.errors).toEqual([]);
      expect(result.rows).toHaveLength(1);
    }
  });

  it("documents the legacy key in the Row schema itself", () => {
    const row = { internal_id: "a", remaining_amount: 1, currency: "EUR", accept_expensive_destination: "whatever" };
    expect(Schema.decodeUnknownEither(Snapshot.Row)(row)).toEqual(Either.right(row));
    expect(Either.isLeft(Schema.decodeUnknownEither(Snapshot.Row)({ ...row, coverage: 1 }))).toBe(true);
  });

  it("rejects legacy row keys with a specific message and other keys as unknown", () => {
    expect(
      errorsOf({
        internal_id: "a",
        remaining_amount: 1,
        currency: "EUR",
        snapshot_at: "2024-01-01",
        allocations: [],
        financial_operations: [],
        coverage: {},
        covered_remaining_amount: 1,
        amount: 1,
      }),
    ).toEqual([
      { field: "snapshot_at", reason: '"snapshot_at" is not accepted in snapshot rows' },
      { field: "allocations", reason: '"allocations" is not accepted in snapshot rows' },
      { field: "financial_operations", reason: '"financial_operations" is not accepted in snapshot rows' },
      { field: "coverage", reason: '"coverage" is not accepted in snapshot rows' },
      { field: "covered_remaining_amount", reason: '"covered_remaining_amount" is not accepted in snapshot rows' },
      { field: "amount", reason: 'unknown key "amount"' },
    ]);
  });

  it("requires an identity, an amount and a currency", () => {
    expect(errorsOf({ firstname: "Ada" })).toEqual([
      { field: "internal_id", reason: "internal_id or invoice_reference is required" },
      { field: "remaining_amount", reason: "is required" },
      { field: "currency", reason: "is required" },
    ]);
    expect(errorsOf({ internal_id: "a", remaining_amount: 1, currency: "EUR" })).toEqual([]);
  });

  it("reports a non-object row on the row itself", () => {
    expect(validate([null, 3, "row", [1]], 10).errors).toEqual([
      { row_index: 10, field: "", reason: "row must be a JSON object" },
      { row_index: 11, field: "", reason: "row must be a JSON object" },
      { row_index: 12, field: "", reason: "row must be a JSON object" },
      { row_index: 13, field: "", reason: "row must be a JSON object" },
    ]);
  });

  it("checks every field's type and bounds", () => {
    expect(
      errorsOf({
        internal_id: "",
        invoice_reference: "x".repeat(256),
        remaining_amount: -1,
        currency: "eur",
        firstname: "x".repeat(256),
        lastname: 5,
        email: "not-an-email",
        phone: "0612345678",
      }),
    ).toEqual([
      { field: "invoice_reference", reason: "must be at most 255 characters" },
      { field: "internal_id", reason: "must not be empty" },
      { field: "remaining_amount", reason: "must be greater than or equal to 0" },
      { field: "currency", reason: "must be a 3-letter upper-case ISO 4217 currency code" },
      { field: "firstname", reason: "must be at most 255 characters" },
      { field: "lastname", reason: "must be a string" },
      { field: "email", reason: "must be a valid e-mail address" },
      { field: "phone", reason: "must be an E.164 phone number such as +33612345678" },
    ]);
    expect(
      errorsOf({ internal_id: "a", remaining_amount: "12", currency: "EUR", email: `${"a".repeat(310)}@example.com` }),
    ).toEqual([
      { field: "remaining_amount", reason: "must be a number" },
      { field: "email", reason: "must be at most 320 characters" },
    ]);
  });

  it("rejects an amount finer than the currency allows", () => {
    expect(errorsOf({ internal_id: "a", remaining_amount: 0.1 + 0.2, currency: "EUR" })).toEqual([
      { field: "remaining_amount", reason: "has more than 2 decimal(s) for EUR" },
    ]);
  });

  it("reports payment plan problems with dotted paths", () => {
    const row = {
      internal_id: "a",
      remaining_amount: 100,
      currency: "EUR",
      payment_plan: {
        external_reference: "p",
        status: "active",
        installments: [
          { external_reference: "i0", amount: 60, payment_date: "2024-01-01", status: "pending" },
          { external_reference: "i1", amount: 30, payment_date: "2024-02-01", status: "pending" },
          {
            external_reference: "i2",
            amount: 5,
            payment_date: "2024-03-01",
            status: "paid",
            external_payment_id: "x",
            paid_at: null,
          },
        ],
      },
    };
    expect(errorsOf(row)).toEqual([
      { field: "payment_plan.installments.2.paid_at", reason: "is required when status is paid" },
      { field: "payment_plan", reason: "sum of pending installments (90.00) does not equal remaining_amount (100.00)" },
    ]);
    const badShape = { ...row, payment_plan: { ...row.payment_plan, installments: [{ amount: 1, extra: 1 }] } };
    expect(errorsOf(badShape)).toEqual([
      { field: "payment_plan.installments.0.extra", reason: 'unknown key "extra"' },
      { field: "payment_plan.installments.0.external_reference", reason: "is required" },
      { field: "payment_plan.installments.0.payment_date", reason: "is required" },
      { field: "payment_plan.installments.0.status", reason: "is required" },
    ]);
    expect(errorsOf({ ...row, payment_plan: "yes" })).toEqual([{ field: "payment_plan", reason: "must be an object" }]);
  });

  it("keeps valid rows and numbers errors from firstRowIndex", () => {
    const result = validate(
      [
        { internal_id: "a", remaining_amount: 1, currency: "EUR" },
        { internal_id: "b", remaining_amount: -1, currency: "EUR" },
      ],
      500,
    );
    expect(result.rows.map((row) => row.rowIndex)).toEqual([500]);
    expect(result.errors).toEqual([
      { row_index: 501, field: "remaining_amount", reason: "must be greater than or equal to 0" },
    ]);
  });
});

const rowsOf = (raw: ReadonlyArray<unknown>, firstRowIndex = 0): Array<Snapshot.ValidRow> => {
  const result = validate(raw, firstRowIndex);
  expect(result.errors).toEqual([]);
  return result.rows;
};

describe("a body full of wrong rows", () => {
  it("names every problem of the first rows, then refuses each later row on its first problem", () => {
    // 9,000 rows of 500 wrong installments fit in 10 MiB: 4,500,000 problems, 21 s to name them all.
    const rows = Array.from({ length: 9_000 }, (_, i) => ({
      internal_id: `a${i}`,
      remaining_amount: 1,
      currency: "EUR",
      payment_plan: { external_reference: "p", status: "active", installments: Array.from({ length: 500 }, () => 1) },
    }));
    const { rows: valid, errors } = Snapshot.validateRows(rows, { firstRowIndex: 0 });
    expect(valid).toEqual([]);
    // Rows 0 and 1 have 500 errors each; the 8,998 rows after them, one each.
    expect(errors).toHaveLength(1_000 + 8_998);
    expect(errors.filter((error) => error.row_index === 1)).toHaveLength(500);
    expect(errors.filter((error) => error.row_index === 2)).toHaveLength(1);
    expect(SnapshotErrors.rowErrorDetails(errors)["rows"]).toBe(
      "at least 9898 more row error(s) not listed; the first 100 are",
    );
  });
});

describe("checkAcrossRows", () => {
  it("accepts distinct identities of one stream", () => {
    const rows = rowsOf([
      { internal_id: "a", invoice_reference: "inv-a", remaining_amount: 1, currency: "EUR" },
      { internal_id: "b", remaining_amount: 1, currency: "EUR" },
    ]);
    expect(Snapshot.checkAcrossRows(rows)).toEqual([]);
  });

  it("reports duplicate identities on the later row, across chunks", () => {
    const chunk0 = rowsOf([{ internal_id: "a", remaining_amount: 1, currency: "EUR" }], 0);
    const chunk1 = rowsOf(
      [
        { internal_id: "b", remaining_amount: 1, currency: "EUR" },
        { internal_id: "a", remaining_amount: 2, currency: "EUR" },
      ],
      1,
    );
    expect(Snapshot.checkAcrossRows([...chunk0, ...chunk1])).toEqual([
      { row_index: 2, field: "internal_id", reason: 'duplicate internal_id "a" (first used by row 0)' },
    ]);
  });

  it("reports duplicate invoice references even under internal_id identities", () => {
    const rows = rowsOf([
      { internal_id: "a", invoice_reference: "inv-1", remaining_amount: 1, currency: "EUR" },
      { internal_id: "b", invoice_reference: "inv-1", remaining_amount: 1, currency: "EUR" },
    ]);
    expect(Snapshot.checkAcrossRows(rows)).toEqual([
      { row_index: 1, field: "invoice_reference", reason: 'duplicate invoice_reference "inv-1" (first used by row 0)' },
    ]);
  });

  it("reports a duplicate invoice identity once", () => {
    const rows = rowsOf([
      { invoice_reference: "inv-1", remaining_amount: 1, currency: "EUR" },
      { invoice_reference: "inv-1", remaining_amount: 1, currency: "EUR" },
    ]);
    expect(Snapshot.checkAcrossRows(rows)).toEqual([
      { row_index: 1, field: "invoice_reference", reason: 'duplicate invoice_reference "inv-1" (first used by row 0)' },
    ]);
  });

  it("reports rows of the other stream", () => {
    const account = rowsOf([
      { internal_id: "a", remaining_amount: 1, currency: "EUR" },
      { invoice_reference: "inv-1", remaining_amount: 1, currency: "EUR" },
    ]);
    expect(Snapshot.checkAcrossRows(account)).toEqual([
      {
        row_index: 1,
        field: "internal_id",
        reason: "is required: this snapshot uses account balances (internal_id) since row 0",
      },
    ]);
    const invoice = rowsOf([
      { invoice_reference: "inv-1", remaining_amount: 1, currency: "EUR" },
      { internal_id: "a", invoice_reference: "inv-1", remaining_amount: 1, currency: "EUR" },
    ]);
    expect(Snapshot.checkAcrossRows(invoice)).toEqual([
      {
        row_index: 1,
        field: "internal_id",
        reason: "is not allowed: this snapshot uses invoice balances (invoice_reference) since row 0",
      },
      { row_index: 1, field: "invoice_reference", reason: 'duplicate invoice_reference "inv-1" (first used by row 0)' },
    ]);
  });
});

describe("acrossRowsError", () => {
  it("states each rule across rows, naming the earlier row", () => {
    expect(Snapshot.acrossRowsRules.map((rule) => rule)).toEqual([
      "missing_identity",
      "stream",
      "duplicate_identity",
      "duplicate_invoice",
    ]);
    expect(Snapshot.acrossRowsError({ rule: "missing_identity", rowIndex: 4 })).toEqual({
      row_index: 4,
      field: "internal_id",
      reason: "internal_id or invoice_reference is required",
    });
    expect(Snapshot.acrossRowsError({ rule: "stream", rowIndex: 4, firstRowIndex: 1, firstStream: "account" })).toEqual(
      {
        row_index: 4,
        field: "internal_id",
        reason: "is required: this snapshot uses account balances (internal_id) since row 1",
      },
    );
    expect(Snapshot.acrossRowsError({ rule: "stream", rowIndex: 4, firstRowIndex: 1, firstStream: "invoice" })).toEqual(
      {
        row_index: 4,
        field: "internal_id",
        reason: "is not allowed: this snapshot uses invoice balances (invoice_reference) since row 1",
      },
    );
    expect(
      Snapshot.acrossRowsError({
        rule: "duplicate_identity",
        rowIndex: 4,
        firstRowIndex: 2,
        identity: { kind: "invoice_reference", value: "inv-1" },
      }),
    ).toEqual({
      row_index: 4,
      field: "invoice_reference",
      reason: 'duplicate invoice_reference "inv-1" (first used by row 2)',
    });
    expect(
      Snapshot.acrossRowsError({ rule: "duplicate_invoice", rowIndex: 4, firstRowIndex: 3, invoiceReference: "inv-2" }),
    ).toEqual({
      row_index: 4,
      field: "invoice_reference",
      reason: 'duplicate invoice_reference "inv-2" (first used by row 3)',
    });
  });

  it("is the message of a row without an identity in validateRows too", () => {
    const { errors } = Snapshot.validateRows([{ remaining_amount: 1, currency: "EUR" }], { firstRowIndex: 9 });
    expect(errors).toEqual([Snapshot.acrossRowsError({ rule: "missing_identity", rowIndex: 9 })]);
  });
});

describe("decodeBody", () => {
  const failure = (body: unknown) => {
    const result = Snapshot.decodeBody(body);
    return Either.isLeft(result)
      ? { reason: result.left.reason, field: result.left.field, message: result.left.message }
      : undefined;
  };

  it("returns the raw rows of { rows: [...] }", () => {
    expect(Snapshot.decodeBody({ rows: [1, {}] })).toEqual(Either.right([1, {}]));
  });

  it("rejects other shapes, extra keys and too many rows", () => {
    expect(failure([])).toEqual({ reason: "invalid_body", field: "", message: "body must be a JSON object" });
    expect(failure({})).toEqual({ reason: "invalid_body", field: "rows", message: "rows must be an array" });
    expect(failure({ rows: [], expected_row_count: 3 })).toEqual({
      reason: "invalid_body",
      field: "expected_row_count",
      message: 'unknown key "expected_row_count"',
    });
    expect(failure({ rows: new Array(Snapshot.MAX_ROWS + 1).fill({}) })).toEqual({
      reason: "too_many_rows",
      field: "rows",
      message: "rows must contain at most 20000 items, got 20001",
    });
    expect(failure({ rows: new Array(Snapshot.MAX_ROWS).fill({}) })).toBeUndefined();
  });

  it("names the limits and states", () => {
    expect([Snapshot.MAX_ROWS, Snapshot.MAX_BODY_BYTES]).toEqual([20_000, 10_485_760]);
    expect(Snapshot.statuses).toEqual(["pending", "uploading", "processing", "completed", "failed"]);
    expect(Snapshot.deliveryModes).toEqual(["staged", "one_request"]);
  });
});

describe("a full snapshot", () => {
  // Its speed is measured by `pnpm bench` (packages/domain/bench), never asserted here.
  it("validates and cross-checks 20,000 rows, through the fast path and the schema alike", () => {
    const raw = Array.from({ length: Snapshot.MAX_ROWS }, (_, i) => ({
      internal_id: `acc-${i}`,
      invoice_reference: `inv-${i}`,
      remaining_amount: (10_000 + (i % 1000)) / 100,
      currency: "EUR",
      firstname: "Ada",
      lastname: "Lovelace",
      email: `debtor${i}@example.com`,
      phone: "+33612345678",
      ...(i % 2 === 0 ? { accept_expensive_destination: true } : {}),
      ...(i % 4 === 0
        ? {
            payment_plan: {
              external_reference: `plan-${i}`,
              status: "active",
              installments: [
                { ...paidInstallment, external_payment_id: `pay-${i}` },
                {
                  external_reference: "i2",
                  amount: (10_000 + (i % 1000)) / 100,
                  payment_date: "2024-02-29",
                  status: "pending",
                },
              ],
            },
          }
        : {}),
    }));
    const result = validate(raw);
    expect(result.errors).toEqual([]);
    expect(Snapshot.checkAcrossRows(result.rows)).toEqual([]);
    expect(result.rows).toHaveLength(20_000);
  });
});

describe("inexactAmountErrors", () => {
  const reason = (text: string, value: number) =>
    `has more significant digits than a number holds exactly: ${text} would read as ${value}`;

  it("names every amount whose text a number cannot hold, with snapshot-wide indexes", () => {
    const body =
      '{"rows":[{"internal_id":"a","remaining_amount":100.000000000000000001,"currency":"EUR"},' +
      '{"internal_id":"b","remaining_amount":10,"currency":"EUR","payment_plan":{"external_reference":"p",' +
      '"status":"active","installments":[{"external_reference":"i","amount":10.0000000000000000001,' +
      '"payment_date":"2024-01-01","status":"pending"}]}}]}';
    expect(SnapshotErrors.inexactAmountErrors(body, 40)).toEqual([
      { row_index: 40, field: "remaining_amount", reason: reason("100.000000000000000001", 100) },
      { row_index: 41, field: "payment_plan.installments.0.amount", reason: reason("10.0000000000000000001", 10) },
    ]);
  });

  it("finds an amount written after JSON whitespace, and a negative one", () => {
    const body =
      '{ "rows" : [ { "internal_id" : "a" , "remaining_amount" :\n\t -12.3400000000000000001 , "currency" : "EUR" } ] }';
    expect(SnapshotErrors.inexactAmountErrors(body, 0)).toEqual([
      { row_index: 0, field: "remaining_amount", reason: reason("-12.3400000000000000001", -12.34) },
    ]);
  });

  it("finds an amount whose key is written with an escape, whatever V8's JSON.parse cached before (docs/decisions/0210)", () => {
    // An earlier text with a key of the same raw beginning and decoded length primes V8's key cache; the
    // misread key is an object's last.
    JSON.parse(String.raw`{"internal_id":1,"currency":1,"remaining_amoun\\":0}`);
    const body = String.raw`{"rows":[{"internal_id":"a","currency":"EUR","remaining_amoun\u0074":12.3400000000000000001}]}`;
    expect(SnapshotErrors.inexactAmountErrors(body, 0)).toEqual([
      { row_index: 0, field: "remaining_amount", reason: reason("12.3400000000000000001", 12.34) },
    ]);
  });

  it("leaves exact amounts, long digit strings and the ignored legacy key alone", () => {
    const body =
      '{"rows":[{"internal_id":"12345678901234567890","remaining_amount":9999999999999.99,"currency":"EUR",' +
      '"accept_expensive_destination":1.00000000000000000001},' +
      '{"internal_id":"b","remaining_amount":1.2500000000000000000E1,"currency":"EUR"}]}';
    expect(SnapshotErrors.inexactAmountErrors(body, 0)).toEqual([]);
  });
});
