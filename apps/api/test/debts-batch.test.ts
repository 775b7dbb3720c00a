import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi, rowCounts } from "./support/json-api.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const api = jsonApi(t.request);
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const token = await t.token(acme);
const readOnly = await t.token(acme, "debts:read creditors:write");

const BATCH = "/external-api/v1/debts/batch";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;

const batch = async (body: Json): Promise<Json> => {
  const response = await api.post(BATCH, token, body);
  expect(response.status, await response.clone().text()).toBe(201);
  const envelope = await expectContract<{ error: false; message: string; data: Json }>(response, "post", BATCH);
  expect(envelope.message).toBe("Batch processed successfully");
  return envelope.data;
};

const validation = async (response: Response, details: Json) => {
  expect(response.status).toBe(400);
  const body = await expectContract<Json>(response, "post", BATCH);
  expect(body).toMatchObject({ error: true, code: 400, message: "Validation failed" });
  expect(body["details"]).toEqual(details);
};

// Counts the statements that insert into debts and debtors, to prove the batch is set-based.
await sql`
  create table insert_statements (table_name text not null);
  create function log_insert_statement() returns trigger language plpgsql as $$
  begin insert into insert_statements values (tg_table_name); return null; end $$;
  create trigger debts_insert_statements after insert on debts for each statement execute function log_insert_statement();
  create trigger debtors_insert_statements after insert on debtors for each statement execute function log_insert_statement();
`.execute(t.db);
const insertStatements = async () => {
  const { rows: counted } = await sql<{ table_name: string; n: number }>`
    select table_name, count(*)::int4 as n from insert_statements group by table_name
  `.execute(t.db);
  return Object.fromEntries(counted.map((row) => [row.table_name, row.n]));
};

describe("POST /debts/batch", () => {
  it("creates the valid entries, reports failed and skipped ones, and records the import", async () => {
    await rows.debt(acme, { internal_id: "EXISTING-1" });
    const existing = await t.db
      .selectFrom("debts")
      .select("id")
      .where("internal_id", "=", "EXISTING-1")
      .executeTakeFirstOrThrow();
    const before = await rowCounts(t.db);
    const data = await batch({
      batch_name: "November import",
      validate_emails: true,
      debts: [
        {
          temp_id: "a",
          firstname: "Ann",
          lastname: "Able",
          email: "ann@able.fr",
          phone: "+33611111111",
          amount: 10.5,
          currency: "EUR",
          internal_id: "B-1",
        },
        { temp_id: "b", lastname: "", amount: -3, currency: "euro", email: "x", shoe_size: 42 },
        { temp_id: "c", lastname: "Dup", amount: 1, currency: "EUR", internal_id: "B-1" },
        { temp_id: "d", lastname: "Old", amount: 1, currency: "EUR", internal_id: "EXISTING-1" },
        { lastname: "No temp id", amount: 2000, currency: "JPY", email: "bob@mailinator.com" },
        "not an object",
      ],
    });
    expect(data["import_id"]).toMatch(UUID);
    const created = await t.db
      .selectFrom("debts")
      .selectAll()
      .where("import_id", "=", data["import_id"])
      .orderBy("id")
      .execute();
    expect(created).toHaveLength(2);
    expect(data).toEqual({
      import_id: data["import_id"],
      batch_name: "November import",
      created: [
        {
          index: 0,
          temp_id: "a",
          debt_id: ids.encode("debt", created[0]!.id),
          status: "valid",
          data: {
            firstname: "Ann",
            lastname: "Able",
            phone: "+33611111111",
            email: "ann@able.fr",
            amount: 10.5,
            currency: "EUR",
          },
        },
        {
          index: 4,
          temp_id: null,
          debt_id: ids.encode("debt", created[1]!.id),
          status: "valid",
          data: {
            firstname: null,
            lastname: "No temp id",
            phone: null,
            email: "bob@mailinator.com",
            amount: 2000,
            currency: "JPY",
          },
        },
      ],
      failed: [
        {
          index: 1,
          temp_id: "b",
          status: "error",
          errors: expect.arrayContaining([
            { property: "amount", message: "must be a number greater than 0" },
            { property: "currency", message: "must be a 3-letter upper-case ISO 4217 currency code" },
            { property: "email", message: "must be a valid e-mail address" },
            { property: "shoe_size", message: 'unknown field "shoe_size"' },
          ]),
        },
        { index: 5, temp_id: null, status: "error", errors: [{ property: "entry", message: expect.any(String) }] },
      ],
      skipped: [
        {
          index: 2,
          temp_id: "c",
          status: "skipped",
          reason: "duplicate_in_batch",
          internal_id: "B-1",
          existing_debt_id: null,
          duplicate_of_index: 0,
        },
        {
          index: 3,
          temp_id: "d",
          status: "skipped",
          reason: "duplicate_internal_id",
          internal_id: "EXISTING-1",
          existing_debt_id: ids.encode("debt", existing.id),
          duplicate_of_index: null,
        },
      ],
      summary: {
        total: 6,
        created: 2,
        failed: 2,
        skipped: 2,
        valid: 4,
        error: 2,
        email_validation: { valid: 1, invalid: 1, unverifiable: 0, charged: 0 },
      },
    });
    expect(data["failed"][0].errors).toHaveLength(4);
    expect(created[0]).toMatchObject({
      amount_minor: 1_050,
      currency: "EUR",
      status: "status.default.pending",
      internal_id: "B-1",
    });
    expect(created[1]).toMatchObject({ amount_minor: 2_000, currency: "JPY", amount_text: "2000" });
    const record = await t.db
      .selectFrom("import_batches")
      .selectAll()
      .where("id", "=", data["import_id"])
      .executeTakeFirstOrThrow();
    expect(record).toMatchObject({
      company_id: rows.companyOf(acme),
      batch_name: "November import",
      summary: data["summary"],
    });
    expect(await rowCounts(t.db)).toEqual({
      ...before,
      debts: before.debts + 2,
      import_batches: before.import_batches + 1,
    });
  });

  it("applies batch-wide options unless an entry sets its own", async () => {
    const data = await batch({
      accept_expensive_destination: true,
      detect_civility: true,
      validate_emails: true,
      debts: [
        { temp_id: "1", firstname: "Mr John", lastname: "Smith", email: "john@smith.test", amount: 1, currency: "EUR" },
        {
          temp_id: "2",
          firstname: "Mme Jeanne",
          lastname: "Roux",
          email: "j@roux.fr",
          amount: 1,
          currency: "EUR",
          accept_expensive_destination: false,
          detect_civility: false,
          validate_emails: false,
        },
      ],
    });
    const [first, second] = await Promise.all(
      data["created"].map((entry: Json) =>
        t.db
          .selectFrom("debts")
          .selectAll()
          .where("id", "=", ids.decode("debt", entry["debt_id"])!)
          .executeTakeFirstOrThrow(),
      ),
    );
    expect(first).toMatchObject({
      civility: "Mr",
      firstname: "John",
      accept_expensive_destination: true,
      email_validation: { status: "invalid", reason: "reserved_domain" },
    });
    expect(second).toMatchObject({
      civility: null,
      firstname: "Mme Jeanne",
      accept_expensive_destination: false,
      email_validation: { status: "unverifiable", reason: "not_requested" },
    });
    expect(data["summary"]["email_validation"]).toEqual({ valid: 0, invalid: 1, unverifiable: 1, charged: 0 });
  });

  it("resolves creditors (batch default, per entry), timelines and credit notes of the same batch; foreign ids fail", async () => {
    const second = await t.db
      .insertInto("creditors")
      .values({ company_id: rows.companyOf(acme), name: "Batch creditor" })
      .returning("id")
      .executeTakeFirstOrThrow();
    const secondId = ids.encode("creditor", second.id);
    const data = await batch({
      creditor_id: secondId,
      debts: [
        { temp_id: "note", lastname: "N", amount: 5, currency: "EUR", credited_invoice_reference: "BATCH-INV" },
        {
          temp_id: "inv",
          lastname: "I",
          amount: 50,
          currency: "EUR",
          invoice_reference: "BATCH-INV",
          timeline_id: acme.timeline_id,
        },
        { temp_id: "default", lastname: "D", amount: 5, currency: "EUR", creditor_id: acme.creditor_id },
        { temp_id: "foreign-creditor", lastname: "F", amount: 5, currency: "EUR", creditor_id: globex.creditor_id },
        { temp_id: "foreign-timeline", lastname: "T", amount: 5, currency: "EUR", timeline_id: globex.timeline_id },
        { temp_id: "bad-note", lastname: "B", amount: 5, currency: "USD", credited_invoice_reference: "BATCH-INV" },
      ],
    });
    const createdBy = Object.fromEntries(data["created"].map((entry: Json) => [entry["temp_id"], entry["debt_id"]]));
    expect(Object.keys(createdBy).sort()).toEqual(["default", "inv", "note"]);
    const read = (id: string) =>
      t.db.selectFrom("debts").selectAll().where("id", "=", ids.decode("debt", id)!).executeTakeFirstOrThrow();
    expect(await read(createdBy["note"])).toMatchObject({
      creditor_id: second.id,
      is_credit_note: true,
      balance_minor: 0,
    });
    expect(await read(createdBy["inv"])).toMatchObject({
      creditor_id: second.id,
      timeline_id: ids.decode("timeline", acme.timeline_id),
    });
    expect(await read(createdBy["default"])).toMatchObject({ creditor_id: ids.decode("creditor", acme.creditor_id) });
    expect(data["failed"]).toEqual([
      {
        index: 3,
        temp_id: "foreign-creditor",
        status: "error",
        errors: [{ property: "creditor_id", message: "unknown creditor" }],
      },
      {
        index: 4,
        temp_id: "foreign-timeline",
        status: "error",
        errors: [{ property: "timeline_id", message: "unknown or archived timeline" }],
      },
      {
        index: 5,
        temp_id: "bad-note",
        status: "error",
        errors: [{ property: "currency", message: "must be the credited invoice's currency (EUR)" }],
      },
    ]);
  });

  it("refuses a credit note whose invoice entry of the same batch is skipped, since that invoice is never created", async () => {
    await rows.debt(acme, { internal_id: "SKIP-OLD", invoice_reference: "SKIP-INV-OLD" });
    const data = await batch({
      debts: [
        { temp_id: "taken", lastname: "A", amount: 10, currency: "EUR", internal_id: "SKIP-OLD", invoice_reference: "SKIP-INV-1" },
        { temp_id: "note-1", lastname: "B", amount: 1, currency: "EUR", credited_invoice_reference: "SKIP-INV-1" },
        { temp_id: "first", lastname: "C", amount: 10, currency: "EUR", internal_id: "SKIP-X", invoice_reference: "SKIP-INV-2" },
        { temp_id: "repeat", lastname: "C", amount: 10, currency: "EUR", internal_id: "SKIP-X", invoice_reference: "SKIP-INV-3" },
        { temp_id: "note-3", lastname: "D", amount: 1, currency: "EUR", credited_invoice_reference: "SKIP-INV-3" },
        { temp_id: "note-2", lastname: "E", amount: 1, currency: "EUR", credited_invoice_reference: "SKIP-INV-2" },
      ],
    });
    expect(data["created"].map((entry: Json) => entry["temp_id"])).toEqual(["first", "note-2"]);
    expect(data["skipped"].map((entry: Json) => entry["temp_id"])).toEqual(["taken", "repeat"]);
    const noInvoice = [{ property: "credited_invoice_reference", message: "no debt of this creditor has this invoice_reference" }];
    expect(data["failed"]).toEqual([
      { index: 1, temp_id: "note-1", status: "error", errors: noInvoice },
      { index: 4, temp_id: "note-3", status: "error", errors: noInvoice },
    ]);
    expect(data["summary"]).toMatchObject({ total: 6, created: 2, failed: 2, skipped: 2, valid: 4, error: 2 });
    const notes = await t.db
      .selectFrom("debts")
      .select("credited_invoice_reference")
      .where("credited_invoice_reference", "in", ["SKIP-INV-1", "SKIP-INV-3"])
      .execute();
    expect(notes).toEqual([]);
  });

  it("fails an entry whose amount text has more digits than a number holds, instead of rounding it", async () => {
    const text = `{"debts":[{"temp_id":"exact","lastname":"A","currency":"EUR","amount":12.34},{"temp_id":"rounded","lastname":"B","currency":"EUR","amount":12.3400000000000000001}]}`;
    const response = await api.post(BATCH, token, text);
    expect(response.status).toBe(201);
    const { data } = await expectContract<{ data: Json }>(response, "post", BATCH);
    expect(data["created"].map((entry: Json) => entry["temp_id"])).toEqual(["exact"]);
    expect(data["failed"]).toEqual([
      {
        index: 1,
        temp_id: "rounded",
        status: "error",
        errors: [{ property: "amount", message: expect.stringContaining("12.3400000000000000001 would read as 12.34") }],
      },
    ]);
  });

  it("creates 1,000 debts with one insert statement for the debts and one for the debtors", async () => {
    const before = await insertStatements();
    const data = await batch({
      batch_name: "big",
      debts: Array.from({ length: 1000 }, (_, index) => ({
        temp_id: `t${index}`,
        lastname: `Debtor ${index}`,
        amount: index + 0.25,
        currency: "EUR",
        internal_id: `BIG-${index}`,
        debtor_reference: `BIG-DEBTOR-${index % 10}`,
      })),
    });
    expect(data["summary"]).toMatchObject({ total: 1000, created: 1000, failed: 0, skipped: 0, valid: 1000, error: 0 });
    expect(data["created"][999]).toMatchObject({ index: 999, temp_id: "t999", data: { amount: 999.25 } });
    const after = await insertStatements();
    expect((after["debts"] ?? 0) - (before["debts"] ?? 0)).toBe(1);
    expect((after["debtors"] ?? 0) - (before["debtors"] ?? 0)).toBe(1);
    const debtors = await t.db
      .selectFrom("debtors")
      .select("id")
      .where("debtor_reference", "like", "BIG-DEBTOR-%")
      .execute();
    expect(debtors).toHaveLength(10);
    const linked = await t.db
      .selectFrom("debts")
      .select((eb) => eb.fn.count<number>("debtor_id").distinct().as("n"))
      .where("import_id", "=", data["import_id"])
      .executeTakeFirstOrThrow();
    expect(Number(linked.n)).toBe(10);
  });

  it("lets concurrent batches naming the same new internal_ids and debtors in different orders all answer, each id created once", async () => {
    for (let round = 0; round < 5; round++) {
      const entries = Array.from({ length: 50 }, (_, i) => ({
        temp_id: `r${round}-${i}`,
        internal_id: `RACE-${round}-${i}`,
        debtor_reference: `RACE-DEBTOR-${round}-${i}`,
        lastname: `Racer ${i}`,
        amount: 10 + i,
        currency: "EUR",
      }));
      const responses = await Promise.all(
        [entries, [...entries].reverse(), entries, [...entries].reverse()].map((debts) => api.post(BATCH, token, { debts })),
      );
      expect(responses.map((response) => response.status)).toEqual([201, 201, 201, 201]);
      const summaries = await Promise.all(responses.map(async (response) => ((await response.json()) as { data: { summary: Json } }).data.summary));
      expect(summaries.reduce((sum, summary) => sum + Number(summary["created"]), 0)).toBe(50);
      expect(summaries.reduce((sum, summary) => sum + Number(summary["skipped"]), 0)).toBe(150);
      const { rows: counted } = await sql<{ debts: number; debtors: number }>`
        select (select count(*) from debts where internal_id like ${`RACE-${round}-%`})::int as debts,
               (select count(*) from debtors where debtor_reference like ${`RACE-DEBTOR-${round}-%`})::int as debtors`.execute(t.db);
      expect(counted[0]).toEqual({ debts: 50, debtors: 50 });
    }
  });

  it("answers 400 naming `debts` for more than 1,000 entries or none, and writes nothing", async () => {
    const before = await rowCounts(t.db);
    const entry = { lastname: "X", amount: 1, currency: "EUR" };
    await validation(await api.post(BATCH, token, { debts: Array.from({ length: 1001 }, () => entry) }), {
      debts: "must contain at most 1000 debts",
    });
    await validation(await api.post(BATCH, token, { debts: [] }), { debts: "must contain at least 1 debt" });
    await validation(await api.post(BATCH, token, { debts: entry }), { debts: expect.any(String) });
    await validation(await api.post(BATCH, token, { batch_name: "x" }), { debts: "is missing" });
    await validation(await api.post(BATCH, token, { debts: [entry], mode: "fast" }), { mode: 'unknown field "mode"' });
    expect(await rowCounts(t.db)).toEqual(before);
  });

  it("answers malformed JSON, a wrong Content-Type and an oversize body without writing", async () => {
    const before = await rowCounts(t.db);
    await validation(await api.post(BATCH, token, '{"debts": ['), { body: expect.stringMatching(/^Malformed JSON/) });
    const wrongType = await api.post(BATCH, token, "<debts/>", { contentType: "application/xml" });
    expect(wrongType.status).toBe(415);
    expect(await expectContract(wrongType, "post", BATCH)).toEqual({
      error: true,
      code: 415,
      message: "Unsupported media type: expected application/json",
    });
    const huge = await api.post(BATCH, token, {
      debts: [{ lastname: "x".repeat(10 * 1024 * 1024), amount: 1, currency: "EUR" }],
    });
    expect(huge.status).toBe(413);
    expect(await expectContract(huge, "post", BATCH)).toMatchObject({
      error: true,
      code: 413,
      error_code: "payload_too_large",
    });
    expect(await rowCounts(t.db)).toEqual(before);
  });

  it("needs debts:write", async () => {
    const before = await rowCounts(t.db);
    const response = await api.post(BATCH, readOnly, { debts: [{ lastname: "X", amount: 1, currency: "EUR" }] });
    expect(response.status).toBe(403);
    expect(await expectContract(response, "post", BATCH)).toEqual({
      error: true,
      code: 403,
      message: 'Required scope "debts:write" not found in token',
    });
    expect(await rowCounts(t.db)).toEqual(before);
  });
});
