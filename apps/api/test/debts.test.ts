import { formatIsoOffset } from "@dc/contract";
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
const readOnly = await t.token(acme, "debts:read");
const creditorsOnly = await t.token(acme, "creditors:read creditors:write");

const DEBTS = "/external-api/v1/debts";
const ONE = "/external-api/v1/debts/{id}";
const one = (id: string) => `${DEBTS}/${id}`;
const ISO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;
const acmeCreditorKey = ids.decode("creditor", acme.creditor_id)!;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies field by field
type Json = Record<string, any>;

const create = async (body: Json, accessToken = token): Promise<Json> => {
  const response = await api.post(DEBTS, accessToken, body);
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  return (await expectContract<{ data: Json }>(response, "post", DEBTS)).data;
};

const expectError = async (response: Response, method: string, path: string, status: number, body: Json) => {
  expect(response.status).toBe(status);
  expect(await expectContract(response, method, path)).toEqual({ error: true, code: status, ...body });
};

const validation = async (response: Response, method: string, path: string, details: Json) => {
  expect(response.status).toBe(400);
  const body = await expectContract<Json>(response, method, path);
  expect(body).toMatchObject({ error: true, code: 400, message: "Validation failed" });
  expect(body["details"]).toEqual(details);
};

describe("POST /debts", () => {
  it("creates a debt with every field and answers 201 with the debt of contract 2.3", async () => {
    const before = await rowCounts(t.db);
    const now = formatIsoOffset(t.clock.now());
    const response = await api.post(DEBTS, token, {
      creditor_id: acme.creditor_id,
      firstname: "Claire",
      lastname: "Dupont",
      civility: "Mme",
      phone: "+33612345678",
      email: "claire.dupont@gmail.com",
      currency: "EUR",
      amount: 1234.5,
      birthdate: "1980-02-29",
      object: "Unpaid subscription",
      internal_id: "CUST-1",
      invoice_reference: "INV-1",
      debtor_reference: "DEBTOR-1",
      invoice_date: "2026-10-01",
      due_date: "2026-10-31",
      address: "10 rue de Rivoli, 75001 Paris",
      iban: "FR7630006000011234567890189",
      company: "Acme Retail",
      debtor_company: "Dupont SARL",
      street_address: "rue de Rivoli",
      street_number: "10",
      postal_code: "75001",
      city: "Paris",
      country: "FR",
      payment_link: "https://pay.example.org/abc",
      timeline_id: acme.timeline_id,
      timeline_start_mode: "due_date",
      metadata: { crm_id: 42, tags: ["vip"], nested: { ok: true } },
      accept_expensive_destination: true,
      detect_civility: false,
      validate_emails: true,
    });
    expect(response.status).toBe(201);
    const body = await expectContract<{ data: Json }>(response, "post", DEBTS);
    const id = body.data["id"] as string;
    const key = ids.decode("debt", id)!;
    const debtor = await t.db
      .selectFrom("debtors")
      .selectAll()
      .where("debtor_reference", "=", "DEBTOR-1")
      .executeTakeFirstOrThrow();
    expect(body).toEqual({
      error: false,
      message: "Debt created successfully",
      data: {
        id,
        creditor_id: acme.creditor_id,
        debtor_id: ids.encode("debtor", debtor.id),
        civility: "Mme",
        firstname: "Claire",
        lastname: "Dupont",
        phone: "+33612345678",
        email: "claire.dupont@gmail.com",
        birthdate: "1980-02-29",
        amount: 1234.5,
        amount_text: "1234.50",
        remaining_amount: 1234.5,
        currency: "EUR",
        object: "Unpaid subscription",
        internal_id: "CUST-1",
        invoice_reference: "INV-1",
        credited_invoice_reference: null,
        is_credit_note: false,
        debtor_reference: "DEBTOR-1",
        invoice_date: "2026-10-01",
        due_date: "2026-10-31",
        address: "10 rue de Rivoli, 75001 Paris",
        street_address: "rue de Rivoli",
        street_number: "10",
        postal_code: "75001",
        city: "Paris",
        country: "FR",
        status: "status.default.pending",
        timeline_id: acme.timeline_id,
        nb_reminders: 0,
        nb_answered: 0,
        summary: null,
        iban: "FR7630006000011234567890189",
        // Created on a timeline: its first step waits as a followup (docs/decisions/0600).
        followups_count: 1,
        debtor_company: "Dupont SARL",
        payment_link: "https://pay.example.org/abc",
        metadata: { crm_id: 42, tags: ["vip"], nested: { ok: true } },
        import_date: now,
        last_timeline_restart: null,
        payment_plan_active: false,
        plan_start_date: null,
        is_grouped: false,
        group_debt_ids: [id],
        created_at: now,
        updated_at: now,
        email_validation: {
          status: "valid",
          reason: "valid_syntax_and_domain",
          charged: false,
          email: "claire.dupont@gmail.com",
        },
      },
    });
    expect(body.data["import_date"]).toMatch(ISO_OFFSET);
    const row = await t.db.selectFrom("debts").selectAll().where("id", "=", key).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      company_id: rows.companyOf(acme),
      creditor_id: acmeCreditorKey,
      debtor_id: debtor.id,
      amount_minor: 123_450,
      balance_minor: 123_450,
      currency: "EUR",
      amount_text: "1234.50",
      timeline_id: ids.decode("timeline", acme.timeline_id),
      timeline_start_mode: "due_date",
      accept_expensive_destination: true,
      import_id: null,
      campaign_id: null,
      email_validation: {
        status: "valid",
        reason: "valid_syntax_and_domain",
        charged: false,
        email: "claire.dupont@gmail.com",
      },
    });
    expect(debtor).toMatchObject({
      company_id: rows.companyOf(acme),
      firstname: "Claire",
      lastname: "Dupont",
      email: "claire.dupont@gmail.com",
    });
    const after = await rowCounts(t.db);
    expect(after).toEqual({
      ...before,
      debts: before.debts + 1,
      debtors: before.debtors + 1,
      followups: before.followups + 1,
    });
  });

  it("needs only amount, currency and a name; the creditor defaults to the company's first one", async () => {
    const data = await create({ amount: 10, currency: "EUR", lastname: "Minimal" });
    expect(data).toMatchObject({
      creditor_id: acme.creditor_id,
      debtor_id: null,
      amount: 10,
      amount_text: "10.00",
      email: null,
      timeline_id: null,
      metadata: {},
      email_validation: { status: "unverifiable", reason: "not_requested", charged: false, email: null },
    });
    expect((await create({ amount: 1, currency: "EUR", debtor_company: "B2B Corp" }))["debtor_company"]).toBe(
      "B2B Corp",
    );
    expect(
      (await create({ amount: 1, currency: "EUR", firstname: "Solo", email: null, phone: null }))["firstname"],
    ).toBe("Solo");
  });

  it("keeps exact money in the currency's minor units", async () => {
    expect(await create({ amount: 1500, currency: "JPY", lastname: "Yen" })).toMatchObject({
      amount: 1500,
      amount_text: "1500",
    });
    expect(await create({ amount: 12.345, currency: "KWD", lastname: "Dinar" })).toMatchObject({
      amount: 12.345,
      amount_text: "12.345",
    });
    const cents = await create({ amount: 0.3, currency: "EUR", lastname: "Cents" });
    expect(cents).toMatchObject({ amount: 0.3, amount_text: "0.30" });
    const row = await t.db
      .selectFrom("debts")
      .select("amount_minor")
      .where("id", "=", ids.decode("debt", cents["id"])!)
      .executeTakeFirstOrThrow();
    expect(row.amount_minor).toBe(30);
  });

  it("reuses the debtor of a known debtor_reference", async () => {
    const first = await create({ amount: 5, currency: "EUR", lastname: "Shared", debtor_reference: "SHARED-REF" });
    const before = await rowCounts(t.db);
    const second = await create({
      amount: 6,
      currency: "EUR",
      lastname: "Shared again",
      debtor_reference: "SHARED-REF",
    });
    expect(second["debtor_id"]).toBe(first["debtor_id"]);
    expect((await rowCounts(t.db)).debtors).toBe(before.debtors);
  });

  it("moves a leading title into civility with detect_civility", async () => {
    expect(
      await create({ amount: 5, currency: "EUR", firstname: "Mme Claire", lastname: "Martin", detect_civility: true }),
    ).toMatchObject({
      civility: "Mme",
      firstname: "Claire",
      lastname: "Martin",
    });
    expect(await create({ amount: 5, currency: "EUR", lastname: "Dr. House", detect_civility: true })).toMatchObject({
      civility: "Dr",
      lastname: "House",
    });
    expect(await create({ amount: 5, currency: "EUR", firstname: "Mme Claire", lastname: "Martin" })).toMatchObject({
      civility: null,
      firstname: "Mme Claire",
    });
  });

  it("validates e-mails by syntax and domain, without charging", async () => {
    const check = async (email: string) =>
      (await create({ amount: 5, currency: "EUR", lastname: "Mail", email, validate_emails: true }))[
        "email_validation"
      ];
    expect(await check("someone@example.com")).toEqual({
      status: "invalid",
      reason: "reserved_domain",
      charged: false,
      email: "someone@example.com",
    });
    expect(await check("a@b.test")).toMatchObject({ status: "invalid", reason: "reserved_domain" });
    expect(await check("x@mailinator.com")).toMatchObject({ status: "invalid", reason: "disposable_domain" });
    expect(await check("x@mail.yopmail.com")).toMatchObject({ status: "invalid", reason: "disposable_domain" });
    expect(await check("x@host.123")).toMatchObject({ status: "invalid", reason: "invalid_domain" });
    expect(await check("jane@company.co.uk")).toMatchObject({ status: "valid", reason: "valid_syntax_and_domain" });
    expect(
      (await create({ amount: 5, currency: "EUR", lastname: "NoMail", validate_emails: true }))["email_validation"],
    ).toEqual({
      status: "unverifiable",
      reason: "no_email",
      charged: false,
      email: null,
    });
  });

  it("shows `company` only to collection agencies (the given value, else the creditor's name)", async () => {
    const agency = await t.tenant("Agency Partners");
    await t.db
      .updateTable("companies")
      .set({ is_collection_agency: true })
      .where("id", "=", rows.companyOf(agency))
      .execute();
    const agencyToken = await t.token(agency);
    expect(
      await create({ amount: 5, currency: "EUR", lastname: "A", company: "Client Co" }, agencyToken),
    ).toMatchObject({ company: "Client Co" });
    expect(await create({ amount: 5, currency: "EUR", lastname: "B" }, agencyToken)).toMatchObject({
      company: "Agency Partners Receivables",
    });
    expect(await create({ amount: 5, currency: "EUR", lastname: "C", company: "Hidden" })).not.toHaveProperty(
      "company",
    );
  });

  it("answers 400 naming each bad field and writes nothing", async () => {
    const archived = await t.db
      .insertInto("timelines")
      .values({ company_id: rows.companyOf(acme), name: "Old", archived_at: t.clock.now() })
      .returning("id")
      .executeTakeFirstOrThrow();
    const before = await rowCounts(t.db);
    const base = { amount: 10, currency: "EUR", lastname: "Valid" };
    const cases: Array<[Json, Json]> = [
      [{ lastname: "X" }, { amount: "is missing", currency: "is missing" }],
      [{ ...base, amount: 0 }, { amount: "must be a number greater than 0" }],
      [{ ...base, amount: -5 }, { amount: "must be a number greater than 0" }],
      [{ ...base, amount: "10" }, { amount: "must be a number" }],
      [{ ...base, amount: { sent: "SENTINEL" } }, { amount: "must be a number" }],
      [{ ...base, amount: 10.123 }, { amount: "has more than 2 decimal(s) for EUR" }],
      [{ ...base, currency: "JPY", amount: 10.5 }, { amount: "has more than 0 decimal(s) for JPY" }],
      [{ ...base, currency: "eur" }, { currency: "must be a 3-letter upper-case ISO 4217 currency code" }],
      [
        { amount: 10, currency: "EUR", firstname: " " },
        { lastname: "a debtor name is required: lastname, firstname or debtor_company" },
      ],
      [{ ...base, email: "nope" }, { email: "must be a valid e-mail address" }],
      [{ ...base, phone: "0612345678" }, { phone: "must be an E.164 phone number such as +33612345678" }],
      [{ ...base, birthdate: "2024-02-30" }, { birthdate: "expected a date YYYY-MM-DD" }],
      [{ ...base, due_date: "31/10/2026" }, { due_date: "expected a date YYYY-MM-DD" }],
      [{ ...base, civility: "Sir" }, { civility: "must be one of: Mr, Mrs, Ms, Miss, Mx, Dr, M., Mme, Mlle" }],
      [
        { ...base, timeline_start_mode: "later" },
        { timeline_start_mode: "must be one of: immediate, next_window, due_date, manual" },
      ],
      [{ ...base, payment_link: "ftp://x" }, { payment_link: "must be an http(s) URL" }],
      [{ ...base, metadata: [1, 2] }, { metadata: "must be a JSON object or null" }],
      [{ ...base, validate_emails: "yes" }, { validate_emails: "must be a boolean or null" }],
      [{ ...base, status: "status.default.paid" }, { status: 'unknown field "status"' }],
      [{ ...base, internal_id: "" }, { internal_id: "must not be empty" }],
      [{ ...base, timeline_id: globex.timeline_id }, { timeline_id: "unknown or archived timeline" }],
      [{ ...base, timeline_id: ids.encode("timeline", archived.id) }, { timeline_id: "unknown or archived timeline" }],
      [{ ...base, timeline_id: "garbage" }, { timeline_id: "unknown or archived timeline" }],
      [{ ...base, creditor_id: globex.creditor_id }, { creditor_id: "unknown creditor" }],
      [{ ...base, creditor_id: acme.timeline_id }, { creditor_id: "unknown creditor" }],
    ];
    for (const [body, details] of cases) await validation(await api.post(DEBTS, token, body), "post", DEBTS, details);
    expect(await rowCounts(t.db)).toEqual(before);
  });

  it("answers malformed JSON, a wrong Content-Type and an oversize body without writing", async () => {
    const before = await rowCounts(t.db);
    await validation(await api.post(DEBTS, token, '{"amount": 1,'), "post", DEBTS, {
      body: expect.stringMatching(/^Malformed JSON/),
    });
    await expectError(
      await api.post(DEBTS, token, "amount=1", { contentType: "application/x-www-form-urlencoded" }),
      "post",
      DEBTS,
      415,
      {
        message: "Unsupported media type: expected application/json",
      },
    );
    const huge = await api.post(DEBTS, token, {
      amount: 1,
      currency: "EUR",
      lastname: "H",
      object: "x".repeat(1024 * 1024),
    });
    expect(huge.status).toBe(413);
    expect(await expectContract(huge, "post", DEBTS)).toMatchObject({ error: true, code: 413 });
    expect(await rowCounts(t.db)).toEqual(before);
  });

  it("needs debts:write", async () => {
    const before = await rowCounts(t.db);
    await expectError(
      await api.post(DEBTS, readOnly, { amount: 1, currency: "EUR", lastname: "X" }),
      "post",
      DEBTS,
      403,
      {
        message: 'Required scope "debts:write" not found in token',
      },
    );
    expect(await rowCounts(t.db)).toEqual(before);
  });
});

describe("POST /debts: identity and credit notes", () => {
  it("refuses a second debt of the same creditor with the same internal_id (409), allows it on another creditor", async () => {
    await create({ amount: 10, currency: "EUR", lastname: "Twin", internal_id: "TWIN-1" });
    const before = await rowCounts(t.db);
    await expectError(
      await api.post(DEBTS, token, { amount: 11, currency: "EUR", lastname: "Twin", internal_id: "TWIN-1" }),
      "post",
      DEBTS,
      409,
      {
        message: "A debt with this internal_id already exists for this creditor",
        error_code: "duplicate_internal_id",
      },
    );
    expect(await rowCounts(t.db)).toEqual(before);
    const other = await t.db
      .insertInto("creditors")
      .values({ company_id: rows.companyOf(acme), name: "Second creditor" })
      .returning("id")
      .executeTakeFirstOrThrow();
    const elsewhere = await create({
      amount: 11,
      currency: "EUR",
      lastname: "Twin",
      internal_id: "TWIN-1",
      creditor_id: ids.encode("creditor", other.id),
    });
    expect(elsewhere["creditor_id"]).toBe(ids.encode("creditor", other.id));
  });

  it("creates a credit note for an invoice of the same creditor and currency; nothing remains to pay on it", async () => {
    await create({ amount: 200, currency: "EUR", lastname: "Invoiced", invoice_reference: "INV-CN-1" });
    const note = await create({
      amount: 50,
      currency: "EUR",
      lastname: "Invoiced",
      credited_invoice_reference: "INV-CN-1",
    });
    expect(note).toMatchObject({
      is_credit_note: true,
      credited_invoice_reference: "INV-CN-1",
      amount: 50,
      amount_text: "50.00",
      remaining_amount: 0,
      status: "status.default.pending",
    });
    const row = await t.db
      .selectFrom("debts")
      .select(["is_credit_note", "balance_minor"])
      .where("id", "=", ids.decode("debt", note["id"])!)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ is_credit_note: true, balance_minor: 0 });
  });

  it("refuses a credit note for an unknown, foreign or other-currency invoice", async () => {
    await rows.debt(globex, { invoice_reference: "GLOBEX-INV" });
    await create({ amount: 80, currency: "USD", lastname: "Dollar", invoice_reference: "INV-USD" });
    const before = await rowCounts(t.db);
    const note = { amount: 5, currency: "EUR", lastname: "N" };
    await validation(await api.post(DEBTS, token, { ...note, credited_invoice_reference: "NOPE" }), "post", DEBTS, {
      credited_invoice_reference: "no debt of this creditor has this invoice_reference",
    });
    await validation(
      await api.post(DEBTS, token, { ...note, credited_invoice_reference: "GLOBEX-INV" }),
      "post",
      DEBTS,
      {
        credited_invoice_reference: "no debt of this creditor has this invoice_reference",
      },
    );
    await validation(await api.post(DEBTS, token, { ...note, credited_invoice_reference: "INV-USD" }), "post", DEBTS, {
      currency: "must be the credited invoice's currency (USD)",
    });
    expect(await rowCounts(t.db)).toEqual(before);
  });
});

describe("GET /debts/{id}", () => {
  it("reads the company's debt with the same fields as its creation (without email_validation)", async () => {
    const created = await create({
      amount: 42,
      currency: "EUR",
      lastname: "Readable",
      email: "r@acme.fr",
      validate_emails: true,
    });
    const response = await api.get(one(created["id"]), token);
    expect(response.status).toBe(200);
    const body = await expectContract(response, "get", ONE);
    const { email_validation: _ignored, ...expected } = created;
    expect(body).toEqual({ error: false, message: "Debt retrieved successfully", data: expected });
  });

  it("answers 404 for another company's, an unknown, a tampered or a non-debt id", async () => {
    const foreign = await rows.debt(globex);
    const mine = await create({ amount: 1, currency: "EUR", lastname: "Mine" });
    for (const id of [
      ids.encode("debt", foreign),
      ids.encode("debt", 99_999_999),
      // Another last character, whatever the id ends with: an id that ends with "A" would stay itself.
      `${mine["id"].slice(0, -1)}${mine["id"].endsWith("A") ? "B" : "A"}`,
      "x",
      acme.creditor_id,
    ]) {
      await expectError(await api.get(one(id), token), "get", ONE, 404, { message: "Debt not found" });
    }
  });

  it("needs debts:read", async () => {
    const mine = await create({ amount: 1, currency: "EUR", lastname: "Mine" });
    await expectError(await api.get(one(mine["id"]), creditorsOnly), "get", ONE, 403, {
      message: 'Required scope "debts:read" not found in token',
    });
  });
});

describe("POST /debts: exact amounts", () => {
  it("refuses an amount whose JSON text has more digits than a number holds, instead of rounding it, and writes nothing", async () => {
    const before = await rowCounts(t.db);
    for (const amount of ["12.3400000000000000001", "0.100000000000000000001", "99.990000000000000001"]) {
      const response = await api.post(DEBTS, token, `{"lastname":"Exact","currency":"EUR","amount":${amount}}`);
      expect(response.status, amount).toBe(400);
      const body = await expectContract<Json>(response, "post", DEBTS);
      expect(body["details"]).toEqual({ amount: expect.stringContaining(`${amount} would read as`) });
    }
    // Digits of a string and an exact long number elsewhere are not amounts.
    const other = await api.post(
      DEBTS,
      token,
      `{"lastname":"Exact","currency":"EUR","amount":12.34,"internal_id":"12345678901234567890"}`,
    );
    expect(other.status).toBe(201);
    expect(await rowCounts(t.db)).toMatchObject({ ...before, debts: before.debts + 1 });
  });
});
