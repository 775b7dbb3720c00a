import { Snapshot } from "@dc/domain";
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { accountRow, rowsBody, snapshotTestKit, STATUS_PATH } from "./support/snapshots.ts";

const t = await startTestApi();
const kit = snapshotTestKit(t);

const { companyId, campaign, token } = await kit.setup();
let n = 0;

/** Submits `body` under a fresh reference; asserts status and that nothing was stored. */
const rejected = async (body: string, status: number, contentType = "application/json") => {
  n += 1;
  const response = await kit.send("PUT", kit.path(campaign.api_reference, `bad-${n}`), token, body, contentType);
  expect(response.status).toBe(status);
  const json = await expectContract(response, "put", STATUS_PATH);
  expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 0, chunks: 0, jobs: 0 });
  // Failed submits still count against the hourly limit; keep this file's budget.
  await t.db.deleteFrom("rate_limit_counters").execute();
  return json;
};

const invalidRow = (details: Record<string, string>) => ({
  error: true,
  message: "Validation failed",
  code: 422,
  error_code: "invalid_snapshot_row",
  details,
  errors: Object.entries(details).map(([property, message]) => ({ property, message })),
});

describe("rejected row keys (contract 2.9)", () => {
  for (const key of ["snapshot_at", "allocations", "financial_operations", "coverage", "covered_remaining_amount"]) {
    it(`refuses ${key} with 422 invalid_snapshot_row naming rows.<i>.${key}`, async () => {
      const body = await rejected(rowsBody([accountRow(0), accountRow(1, { [key]: "2026-11-21" })]), 422);
      expect(body).toEqual(invalidRow({ [`rows.1.${key}`]: `"${key}" is not accepted in snapshot rows` }));
    });
  }

  it("refuses an unknown key", async () => {
    const body = await rejected(rowsBody([accountRow(0, { nickname: "x" })]), 422);
    expect(body).toEqual(invalidRow({ "rows.0.nickname": 'unknown key "nickname"' }));
  });

  it("refuses an unknown key inside a payment plan installment", async () => {
    const plan = {
      external_reference: "plan-1",
      status: "active",
      installments: [
        { external_reference: "i-1", amount: 100, payment_date: "2026-12-01", status: "pending", bonus: 1 },
      ],
    };
    const body = await rejected(rowsBody([accountRow(0, { remaining_amount: 100, payment_plan: plan })]), 422);
    expect(body.details).toEqual({ "rows.0.payment_plan.installments.0.bonus": 'unknown key "bonus"' });
  });
});

describe("the legacy key accept_expensive_destination (contract 9.3)", () => {
  it("accepts it with any JSON type", async () => {
    const values = [true, false, "no", 0, 1.5, null, { a: [1] }, [1, "x"]];
    const rows = values.map((value, i) => accountRow(i, { accept_expensive_destination: value }));
    const other = await kit.setup();
    const response = await kit.send(
      "PUT",
      kit.path(other.campaign.api_reference, "legacy"),
      other.token,
      rowsBody(rows),
    );
    expect(response.status).toBe(202);
    expect((await expectContract(response, "put", STATUS_PATH)).data.expected_row_count).toBe(values.length);
  });
});

describe("wrong types and rule breaks", () => {
  it("names each wrong field of each row", async () => {
    const rows = [
      accountRow(0, { remaining_amount: "100" }),
      accountRow(1, { currency: "euro" }),
      accountRow(2, { internal_id: 42 }),
      accountRow(3, { email: "not-an-email" }),
      accountRow(4, { remaining_amount: -1 }),
      { remaining_amount: 1, currency: "EUR" },
      "not a row",
      accountRow(7, { remaining_amount: 1.234 }),
    ];
    const body = await rejected(rowsBody(rows), 422);
    expect(body.error_code).toBe("invalid_snapshot_row");
    expect(body.details).toEqual({
      "rows.0.remaining_amount": "must be a number",
      "rows.1.currency": "must be a 3-letter upper-case ISO 4217 currency code",
      "rows.2.internal_id": "must be a string",
      "rows.3.email": "must be a valid e-mail address",
      "rows.4.remaining_amount": "must be greater than or equal to 0",
      "rows.5.internal_id": "internal_id or invoice_reference is required",
      "rows.6": "row must be a JSON object",
      "rows.7.remaining_amount": "has more than 2 decimal(s) for EUR",
    });
  });

  it("reports a payment plan whose pending installments do not sum to remaining_amount on rows.<i>.payment_plan", async () => {
    const plan = {
      external_reference: "plan-1",
      status: "active",
      installments: [
        { external_reference: "i-1", amount: 40, payment_date: "2026-12-01", status: "pending" },
        { external_reference: "i-2", amount: 50, payment_date: "2027-01-01", status: "pending" },
      ],
    };
    const body = await rejected(rowsBody([accountRow(0, { remaining_amount: 100, payment_plan: plan })]), 422);
    expect(body).toEqual(
      invalidRow({
        "rows.0.payment_plan": "sum of pending installments (90.00) does not equal remaining_amount (100.00)",
      }),
    );
  });

  it("refuses an amount whose JSON text a number cannot hold exactly, where rounding would pass the sum rule", async () => {
    // 12.3400000000000000001 reads as the double 12.34: the plan's 12.34 would "equal" it once rounded.
    const plan =
      '{"external_reference":"plan-1","status":"active","installments":[' +
      '{"external_reference":"i-1","amount":12.34,"payment_date":"2026-12-01","status":"pending"},' +
      '{"external_reference":"i-2","amount":1.000000000000000000001,"payment_date":"2027-01-01","status":"paid",' +
      '"paid_at":"2026-11-01T10:00:00Z","external_payment_id":"pay-1"}]}';
    const body = await rejected(
      '{"rows":[{"internal_id":"a","remaining_amount":12.3400000000000000001,"currency":"EUR",' +
        `"payment_plan":${plan}},` +
        '{"internal_id":"b","remaining_amount":1.25E1,"currency":"EUR","accept_expensive_destination":0.10000000000000000001}]}',
      422,
    );
    expect(body.details).toEqual({
      "rows.0.remaining_amount":
        "has more significant digits than a number holds exactly: 12.3400000000000000001 would read as 12.34",
      "rows.0.payment_plan.installments.1.amount":
        "has more significant digits than a number holds exactly: 1.000000000000000000001 would read as 1",
    });
  });

  it("refuses a plan whose paid installments and remaining_amount add up past the largest amount", async () => {
    // A debt created from this row would owe 20 x 9,999,999,999,999.99 EUR: more than a number holds in cents.
    const paid = Array.from({ length: 20 }, (_, i) => ({
      external_reference: `paid-${i}`,
      amount: 9999999999999.99,
      payment_date: "2026-10-01",
      status: "paid",
      paid_at: "2026-10-01T10:00:00Z",
      external_payment_id: `pay-${i}`,
    }));
    const plan = {
      external_reference: "plan-1",
      status: "active",
      installments: [
        { external_reference: "i-1", amount: 0.01, payment_date: "2026-12-01", status: "pending" },
        ...paid,
      ],
    };
    const body = await rejected(rowsBody([accountRow(0, { remaining_amount: 0.01, payment_plan: plan })]), 422);
    expect(body.details).toEqual({
      "rows.0.payment_plan":
        "remaining_amount plus the paid installments exceeds the largest amount (9999999999999.99)",
    });
  });

  it("refuses installment dates and instants PostgreSQL cannot store, before storing anything", async () => {
    const plan = {
      external_reference: "plan-1",
      status: "active",
      installments: [
        {
          external_reference: "i-1",
          amount: 30,
          payment_date: "0000-12-31",
          status: "paid",
          paid_at: "0001-01-01T00:30:00+01:00",
          external_payment_id: "pay-1",
        },
        {
          external_reference: "i-2",
          amount: 30,
          payment_date: "2026-10-01",
          status: "paid",
          paid_at: "9999-12-31T23:30:00-01:00",
          external_payment_id: "pay-2",
        },
        { external_reference: "i-3", amount: 100, payment_date: "0001-01-01", status: "pending" },
      ],
    };
    const body = await rejected(rowsBody([accountRow(0, { remaining_amount: 100, payment_plan: plan })]), 422);
    expect(body.details).toEqual({
      "rows.0.payment_plan.installments.0.payment_date": "must be 0001-01-01 or later",
      "rows.0.payment_plan.installments.0.paid_at": "must be an instant between the years 0001 and 9999",
      "rows.0.payment_plan.installments.1.paid_at": "must be an instant between the years 0001 and 9999",
    });
  });

  it("requires paid_at and external_payment_id on a paid installment", async () => {
    const plan = {
      external_reference: "plan-1",
      status: "active",
      installments: [
        { external_reference: "i-1", amount: 30, payment_date: "2026-10-01", status: "paid" },
        { external_reference: "i-2", amount: 100, payment_date: "2026-12-01", status: "pending" },
      ],
    };
    const body = await rejected(rowsBody([accountRow(0, { remaining_amount: 100, payment_plan: plan })]), 422);
    expect(body.details).toEqual({
      "rows.0.payment_plan.installments.0.paid_at": "is required when status is paid",
      "rows.0.payment_plan.installments.0.external_payment_id": "is required when status is paid",
    });
  });

  it("refuses duplicate identities and duplicate invoice references within the body, naming the later row", async () => {
    const rows = [
      accountRow(0),
      accountRow(1, { internal_id: "acct-0" }),
      accountRow(2, { invoice_reference: "INV-1" }),
      accountRow(3, { invoice_reference: "INV-1" }),
    ];
    const body = await rejected(rowsBody(rows), 422);
    expect(body.details).toEqual({
      "rows.1.internal_id": 'duplicate internal_id "acct-0" (first used by row 0)',
      "rows.3.invoice_reference": 'duplicate invoice_reference "INV-1" (first used by row 2)',
    });
  });

  it("refuses mixing account and invoice balances", async () => {
    const body = await rejected(
      rowsBody([accountRow(0), { invoice_reference: "INV-9", remaining_amount: 5, currency: "EUR" }]),
      422,
    );
    expect(Object.keys(body.details)).toEqual(["rows.1.internal_id"]);
  });

  it("lists at most 100 row errors and counts the rest under details.rows", async () => {
    const rows = Array.from({ length: 150 }, (_, i) => accountRow(i, { currency: "eur" }));
    const body = await rejected(rowsBody(rows), 422);
    expect(Object.keys(body.details)).toHaveLength(101);
    expect(body.details["rows.99.currency"]).toBeDefined();
    expect(body.details["rows.100.currency"]).toBeUndefined();
    expect(body.details.rows).toBe("50 more row error(s) not listed; the first 100 are");
  });

  it("refuses unpaired UTF-16 surrogates (PostgreSQL cannot store them) with 422, even in the legacy key", async () => {
    const body = await rejected(
      '{"rows":[{"internal_id":"a","remaining_amount":1,"currency":"EUR","lastname":"x\\udc00y"},' +
        '{"internal_id":"b","remaining_amount":1,"currency":"EUR","accept_expensive_destination":{"k":["\\ud800"]}},' +
        '{"internal_id":"c","remaining_amount":1,"currency":"EUR","lastname":"\\ud83d\\ude00"}]}',
      422,
    );
    expect(body.details).toEqual({
      "rows.0.lastname": "must not contain the NUL character (\\u0000) or an unpaired UTF-16 surrogate",
      "rows.1.accept_expensive_destination.k.0":
        "must not contain the NUL character (\\u0000) or an unpaired UTF-16 surrogate",
    });
  });

  it("refuses the NUL character with 400 naming the field (every JSON body)", async () => {
    const body = await rejected(
      '{"rows":[{"internal_id":"a","remaining_amount":1,"currency":"EUR","lastname":"x\\u0000y"}]}',
      400,
    );
    expect(body.details).toEqual({ "rows.0.lastname": "must not contain NUL characters" });
  });
});

describe("the body envelope", () => {
  it("refuses 20,001 rows with 400 too_many_rows naming rows", async () => {
    const rows = Array.from({ length: Snapshot.MAX_ROWS + 1 }, (_, i) => accountRow(i));
    expect(await rejected(rowsBody(rows), 400)).toEqual({
      error: true,
      message: "Validation failed",
      code: 400,
      error_code: "too_many_rows",
      details: { rows: "rows must contain at most 20000 items, got 20001" },
      errors: [{ property: "rows", message: "rows must contain at most 20000 items, got 20001" }],
    });
  });

  it("refuses a body over 10 MiB with 413 payload_too_large", async () => {
    const body = rowsBody([accountRow(0)]) + " ".repeat(Snapshot.MAX_BODY_BYTES);
    expect(await rejected(body, 413)).toEqual({
      error: true,
      message: "Request body too large: the limit is 10485760 bytes",
      code: 413,
      error_code: "payload_too_large",
    });
  });

  it("accepts a body of exactly 10 MiB", async () => {
    const other = await kit.setup();
    const head = rowsBody([accountRow(0)]);
    const body = head + " ".repeat(Snapshot.MAX_BODY_BYTES - Buffer.byteLength(head));
    const response = await kit.send("PUT", kit.path(other.campaign.api_reference, "ten-mib"), other.token, body);
    expect(response.status).toBe(202);
    await expectContract(response, "put", STATUS_PATH);
  });

  it("refuses malformed JSON with 400 naming the body", async () => {
    const body = await rejected('{"rows": [', 400);
    expect(body.message).toBe("Validation failed");
    expect(Object.keys(body.details)).toEqual(["body"]);
    expect(body.details.body).toMatch(/^Malformed JSON: /);
  });

  it("refuses an unknown top-level key, a missing rows and rows that are not an array with 400 naming the field", async () => {
    expect((await rejected('{"rows":[],"snapshot_at":"2026-11-21"}', 400)).details).toEqual({
      snapshot_at: 'unknown field "snapshot_at"',
    });
    expect((await rejected("{}", 400)).details).toEqual({ rows: "is missing" });
    expect((await rejected('{"rows":{"0":{}}}', 400)).details).toEqual({ rows: "must be an array of snapshot rows" });
    expect(Object.keys((await rejected("[]", 400)).details)).toEqual(["body"]);
  });

  it("refuses a body that is not JSON with 415", async () => {
    expect(await rejected(rowsBody([accountRow(0)]), 415, "text/csv")).toEqual({
      error: true,
      message: "Unsupported media type: expected application/json",
      code: 415,
    });
  });

  it("refuses a snapshot reference that is only a date, or too long, with 400 naming it", async () => {
    for (const reference of ["2026-11-21", "2026-11-21T10:00:00Z", "x".repeat(256)]) {
      const response = await kit.send(
        "PUT",
        kit.path(campaign.api_reference, reference),
        token,
        rowsBody([accountRow(0)]),
      );
      expect(response.status).toBe(400);
      const body = await expectContract(response, "put", STATUS_PATH);
      expect(Object.keys(body.details)).toEqual(["snapshotReference"]);
    }
    expect(await kit.stored(companyId, campaign.id)).toEqual({ snapshots: 0, chunks: 0, jobs: 0 });
  });
});
