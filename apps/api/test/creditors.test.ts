import { formatCreditorTimestamp } from "@dc/contract";
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
const globexToken = await t.token(globex);
const readOnly = await t.token(acme, "creditors:read");
const noCreditorScope = await t.token(acme, "debts:read debts:write");

const LIST = "/external-api/v1/creditors";
const ONE = "/external-api/v1/creditors/{id}";
const one = (id: string) => `${LIST}/${id}`;
const CREDITOR_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const acmeCreditorKey = ids.decode("creditor", acme.creditor_id)!;

const create = async (body: Record<string, unknown>, accessToken = token) => {
  const response = await api.post(LIST, accessToken, body);
  expect(response.status).toBe(201);
  return (await expectContract<{ data: { id: string } }>(response, "post", LIST)).data;
};

const expectError = async (
  response: Response,
  method: string,
  path: string,
  status: number,
  body: Record<string, unknown>,
) => {
  expect(response.status).toBe(status);
  expect(await expectContract(response, method, path)).toEqual({ error: true, code: status, ...body });
};

describe("POST /creditors", () => {
  it("creates a creditor with every field and answers 201 with the camelCase creditor", async () => {
    const before = await rowCounts(t.db);
    const response = await api.post(LIST, token, {
      name: "Northwind Energy",
      email: "billing@northwind.fr",
      phone: "+33102030405",
      address: "1 rue de la Paix",
      city: "Paris",
      postalCode: "75002",
      country: "FR",
      registrationNumber: "RCS 123 456 789",
      taxNumber: "FR12345678901",
      contactPerson: "Jeanne Martin",
    });
    expect(response.status).toBe(201);
    const body = await expectContract(response, "post", LIST);
    expect(body).toEqual({
      error: false,
      message: "Creditor created successfully",
      data: {
        id: expect.any(String),
        name: "Northwind Energy",
        email: "billing@northwind.fr",
        phone: "+33102030405",
        address: "1 rue de la Paix",
        city: "Paris",
        postalCode: "75002",
        country: "FR",
        registrationNumber: "RCS 123 456 789",
        taxNumber: "FR12345678901",
        contactPerson: "Jeanne Martin",
        createdAt: "2026-11-21 10:00:00",
        updatedAt: "2026-11-21 10:00:00",
      },
    });
    const key = ids.decode("creditor", body.data.id);
    const row = await t.db.selectFrom("creditors").selectAll().where("id", "=", key!).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      company_id: rows.companyOf(acme),
      name: "Northwind Energy",
      postal_code: "75002",
      tax_number: "FR12345678901",
    });
    expect((await rowCounts(t.db)).creditors).toBe(before.creditors + 1);
  });

  it("needs only a name; the other fields are null", async () => {
    const data = await create({ name: "Minimal SARL" });
    expect(data).toMatchObject({ name: "Minimal SARL", email: null, phone: null, contactPerson: null });
  });

  it("answers 400 naming each bad field and writes nothing", async () => {
    const before = await rowCounts(t.db);
    for (const [body, details] of [
      [{}, { name: "is missing" }],
      [{ name: "  " }, { name: "must not be empty" }],
      [{ name: "A", email: "not-an-email" }, { email: "must be a valid e-mail address" }],
      [{ name: "A", nickname: "x" }, { nickname: 'unknown field "nickname"' }],
      [{ name: "A", city: 12 }, { city: "must be a string or null" }],
      [{ name: "x".repeat(256) }, { name: "must be at most 255 characters" }],
    ] as const) {
      const response = await api.post(LIST, token, body);
      expect(response.status).toBe(400);
      const error = await expectContract(response, "post", LIST);
      expect(error).toMatchObject({ error: true, code: 400, message: "Validation failed", details });
    }
    expect(await rowCounts(t.db)).toEqual(before);
  });

  it("answers malformed JSON with 400 on body, a wrong Content-Type with 415, an oversize body with 413", async () => {
    const before = await rowCounts(t.db);
    const malformed = await api.post(LIST, token, '{"name": ');
    expect(malformed.status).toBe(400);
    expect(
      ((await expectContract(malformed, "post", LIST)) as { details: Record<string, string> }).details["body"],
    ).toMatch(/^Malformed JSON/);
    const wrongType = await api.post(LIST, token, "name=x", { contentType: "text/plain" });
    await expectError(wrongType, "post", LIST, 415, { message: "Unsupported media type: expected application/json" });
    const huge = await api.post(LIST, token, { name: "A", address: "x".repeat(1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(await expectContract(huge, "post", LIST)).toMatchObject({
      error: true,
      code: 413,
      error_code: "payload_too_large",
    });
    expect(await rowCounts(t.db)).toEqual(before);
  });

  it("needs creditors:write", async () => {
    const before = await rowCounts(t.db);
    await expectError(await api.post(LIST, readOnly, { name: "Nope" }), "post", LIST, 403, {
      message: 'Required scope "creditors:write" not found in token',
    });
    expect(await rowCounts(t.db)).toEqual(before);
  });
});

describe("GET /creditors", () => {
  it("lists only the token's company's creditors, oldest first, with pagination", async () => {
    const response = await api.get(LIST, token);
    expect(response.status).toBe(200);
    const body = await expectContract<{
      data: Array<{ id: string; name: string; createdAt: string }>;
      pagination: unknown;
    }>(response, "get", LIST);
    const expected = await t.db
      .selectFrom("creditors")
      .select("id")
      .where("company_id", "=", rows.companyOf(acme))
      .orderBy("id")
      .execute();
    expect(body.data.map((creditor) => creditor.id)).toEqual(expected.map((row) => ids.encode("creditor", row.id)));
    expect(body.data.map((creditor) => creditor.id)).not.toContain(globex.creditor_id);
    expect(body.data[0]).toMatchObject({ id: acme.creditor_id, name: "Acme Collections Receivables" });
    expect(body.data[0]!.createdAt).toMatch(CREDITOR_TIME);
    expect(body.pagination).toEqual({ total: expected.length, page: 1, limit: 20, pages: 1 });
    expect(Object.keys(body.data[0]!).sort()).toEqual(
      [
        "address",
        "city",
        "contactPerson",
        "country",
        "createdAt",
        "email",
        "id",
        "name",
        "phone",
        "postalCode",
        "registrationNumber",
        "taxNumber",
        "updatedAt",
      ].sort(),
    );

    const other = await expectContract<{ data: Array<{ id: string }> }>(await api.get(LIST, globexToken), "get", LIST);
    expect(other.data.map((creditor) => creditor.id)).toEqual([globex.creditor_id]);
  });

  it("pages: limit 1 walks the list, a page beyond the end is empty, limit 100 is accepted", async () => {
    const total = (await expectContract<{ pagination: { total: number } }>(await api.get(LIST, token), "get", LIST))
      .pagination.total;
    expect(total).toBeGreaterThanOrEqual(3);
    const second = await expectContract(await api.get(`${LIST}?page=2&limit=1`, token), "get", LIST);
    expect(second.data).toHaveLength(1);
    expect(second.pagination).toEqual({ total, page: 2, limit: 1, pages: total });
    const beyond = await expectContract(await api.get(`${LIST}?page=${total + 1}&limit=1`, token), "get", LIST);
    expect(beyond).toEqual({ error: false, data: [], pagination: { total, page: total + 1, limit: 1, pages: total } });
    const hundred = await expectContract(await api.get(`${LIST}?limit=100`, token), "get", LIST);
    expect(hundred.pagination).toEqual({ total, page: 1, limit: 100, pages: 1 });
  });

  it("answers 400 naming page or limit when out of range or not a number", async () => {
    for (const [query, field] of [
      ["limit=101", "limit"],
      ["limit=0", "limit"],
      ["page=0", "page"],
      ["limit=abc", "limit"],
      ["page=1.5", "page"],
    ] as const) {
      const response = await api.get(`${LIST}?${query}`, token);
      expect(response.status).toBe(400);
      const body = await expectContract<{ details: Record<string, string> }>(response, "get", LIST);
      expect(Object.keys(body.details)).toEqual([field]);
    }
  });

  it("needs creditors:read and a valid token", async () => {
    await expectError(await api.get(LIST, noCreditorScope), "get", LIST, 403, {
      message: 'Required scope "creditors:read" not found in token',
    });
    await expectError(await api.get(LIST, "not-a-token"), "get", LIST, 401, {
      message: "Authentication credentials are missing or invalid",
    });
  });
});

describe("GET /creditors/{id}", () => {
  it("nests the creditor at data.data with totalDebts and totalAmount (remaining balances, major units)", async () => {
    const creditor = await create({ name: "Totals Ltd", email: "totals@example.org" });
    const key = ids.decode("creditor", creditor.id)!;
    await rows.debt(acme, { creditor_id: key, amount_minor: 10_000, balance_minor: 10_000, amount_text: "100.00" });
    await rows.debt(acme, { creditor_id: key, amount_minor: 5_050, balance_minor: 2_525, amount_text: "50.50" });
    await rows.debt(acme, {
      creditor_id: key,
      currency: "JPY",
      amount_minor: 1_000,
      balance_minor: 1_000,
      amount_text: "1000",
    });
    const removed = await rows.debt(acme, {
      creditor_id: key,
      amount_minor: 99_900,
      balance_minor: 99_900,
      amount_text: "999.00",
    });
    await t.db.deleteFrom("debts").where("id", "=", removed).execute();

    const response = await api.get(one(creditor.id), token);
    expect(response.status).toBe(200);
    const body = await expectContract(response, "get", ONE);
    expect(body).toEqual({
      error: false,
      message: "Creditor retrieved successfully",
      data: {
        data: {
          id: creditor.id,
          name: "Totals Ltd",
          email: "totals@example.org",
          phone: null,
          address: null,
          city: null,
          postalCode: null,
          country: null,
          registrationNumber: null,
          taxNumber: null,
          contactPerson: null,
          createdAt: "2026-11-21 10:00:00",
          updatedAt: "2026-11-21 10:00:00",
          totalDebts: 3,
          totalAmount: 1125.25,
          totalAmountByCurrency: { EUR: 125.25, JPY: 1000 },
        },
      },
    });
    expect(Number.isInteger(body.data.data.totalDebts)).toBe(true);
  });

  it("follows balance and status changes made by any writer (the counters are kept by triggers)", async () => {
    const creditor = await create({ name: "Moving Balances" });
    const key = ids.decode("creditor", creditor.id)!;
    const debt = await rows.debt(acme, {
      creditor_id: key,
      amount_minor: 4_000,
      balance_minor: 4_000,
      amount_text: "40.00",
    });
    await t.db
      .updateTable("debts")
      .set({ balance_minor: 1_500, status: "status.default.in_progress" })
      .where("id", "=", debt)
      .execute();
    const body = await expectContract(await api.get(one(creditor.id), token), "get", ONE);
    expect(body.data.data).toMatchObject({ totalDebts: 1, totalAmount: 15, totalAmountByCurrency: { EUR: 15 } });
    const empty = await create({ name: "No Debts" });
    expect((await expectContract(await api.get(one(empty.id), token), "get", ONE)).data.data).toMatchObject({
      totalDebts: 0,
      totalAmount: 0,
      totalAmountByCurrency: {},
    });
  });

  it("answers 404 for another company's, an unknown, a tampered or a non-creditor id", async () => {
    const debt = await rows.debt(acme);
    for (const id of [
      globex.creditor_id,
      ids.encode("creditor", 987_654),
      `${acme.creditor_id.slice(0, -2)}xx`,
      "nope",
      ids.encode("debt", debt),
    ]) {
      await expectError(await api.get(one(id), token), "get", ONE, 404, { message: "Creditor not found" });
    }
  });

  it("needs creditors:read", async () => {
    await expectError(await api.get(one(acme.creditor_id), noCreditorScope), "get", ONE, 403, {
      message: 'Required scope "creditors:read" not found in token',
    });
  });
});

describe.each(["put", "patch"] as const)("%s /creditors/{id}", (method) => {
  const update = (id: string, body: unknown, accessToken = token, contentType?: string) =>
    api.send(method.toUpperCase(), one(id), accessToken, body, contentType === undefined ? {} : { contentType });

  it("updates any subset of the ten fields, leaves the others, and stamps updatedAt", async () => {
    const createdAt = formatCreditorTimestamp(t.clock.now());
    const creditor = await create({ name: `Before ${method}`, email: "before@acme.fr", city: "Lyon", taxNumber: "T1" });
    t.clock.advance(90_000);
    const response = await update(creditor.id, {
      name: `After ${method}`,
      email: "after@acme.fr",
      city: null,
      contactPerson: "Léa",
    });
    expect(response.status).toBe(200);
    const body = await expectContract(response, method, ONE);
    expect(body).toEqual({
      error: false,
      message: "Creditor updated successfully",
      data: expect.objectContaining({
        id: creditor.id,
        name: `After ${method}`,
        email: "after@acme.fr",
        city: null,
        taxNumber: "T1",
        contactPerson: "Léa",
        createdAt,
        updatedAt: formatCreditorTimestamp(new Date(t.clock.now().getTime())),
      }),
    });
    expect(body.data.updatedAt).not.toBe(body.data.createdAt);
    const row = await t.db
      .selectFrom("creditors")
      .selectAll()
      .where("id", "=", ids.decode("creditor", creditor.id)!)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      name: `After ${method}`,
      email: "after@acme.fr",
      city: null,
      tax_number: "T1",
      contact_person: "Léa",
    });
    expect(row.updated_at.toISOString()).toBe(t.clock.now().toISOString());
  });

  it("updates each field alone", async () => {
    const creditor = await create({ name: `Single ${method}` });
    const fields = {
      name: "Renamed",
      email: "x@y.fr",
      phone: "+33611111111",
      address: "2 avenue",
      city: "Nantes",
      postalCode: "44000",
      country: "France",
      registrationNumber: "R-1",
      taxNumber: "T-2",
      contactPerson: "Paul",
    };
    for (const [field, value] of Object.entries(fields)) {
      const body = await expectContract(await update(creditor.id, { [field]: value }), method, ONE);
      expect(body.data[field]).toBe(value);
    }
  });

  it("answers 400 on an invalid e-mail, an unknown key, a null name or an empty body, and changes nothing", async () => {
    const before = await t.db
      .selectFrom("creditors")
      .selectAll()
      .where("id", "=", acmeCreditorKey)
      .executeTakeFirstOrThrow();
    for (const [body, details] of [
      [{ email: "nope@" }, { email: "must be a valid e-mail address" }],
      [{ status: "active" }, { status: 'unknown field "status"' }],
      [{ name: null }, { name: expect.any(String) }],
      [{}, { body: "must set at least one field" }],
    ] as const) {
      const response = await update(acme.creditor_id, body);
      expect(response.status).toBe(400);
      expect(await expectContract(response, method, ONE)).toMatchObject({ message: "Validation failed", details });
    }
    const malformed = await update(acme.creditor_id, "{");
    expect(malformed.status).toBe(400);
    expect(Object.keys((await expectContract(malformed, method, ONE)).details)).toEqual(["body"]);
    await expectError(await update(acme.creditor_id, "name=x", token, "application/xml"), method, ONE, 415, {
      message: "Unsupported media type: expected application/json",
    });
    const huge = await update(acme.creditor_id, { address: "y".repeat(1024 * 1024 + 10) });
    expect(huge.status).toBe(413);
    await expectContract(huge, method, ONE);
    expect(
      await t.db.selectFrom("creditors").selectAll().where("id", "=", acmeCreditorKey).executeTakeFirstOrThrow(),
    ).toEqual(before);
  });

  it("answers 404 for another company's or an invalid id, and leaves that creditor alone", async () => {
    const globexKey = ids.decode("creditor", globex.creditor_id)!;
    const before = await t.db.selectFrom("creditors").selectAll().where("id", "=", globexKey).executeTakeFirstOrThrow();
    for (const id of [globex.creditor_id, "garbage", ids.encode("creditor", 424_242)]) {
      await expectError(await update(id, { name: "Hijacked" }), method, ONE, 404, { message: "Creditor not found" });
    }
    expect(
      await t.db.selectFrom("creditors").selectAll().where("id", "=", globexKey).executeTakeFirstOrThrow(),
    ).toEqual(before);
  });

  it("needs creditors:write", async () => {
    await expectError(await update(acme.creditor_id, { name: "x" }, readOnly), method, ONE, 403, {
      message: 'Required scope "creditors:write" not found in token',
    });
  });
});
