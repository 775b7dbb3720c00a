import { describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Collections");
const globex = await t.tenant("Globex");
const token = await t.token(acme);

const LIST = "/external-api/v1/debtors";
const ONE = "/external-api/v1/debtors/{id}";

const jane = await rows.debtor(acme, {
  debtor_reference: "CUST-1",
  civility: "Ms",
  firstname: "Jane",
  lastname: "Doe",
  email: "jane@example.com",
  phone: "+33612345678",
  birthdate: "1980-02-29",
  debtor_company: "Doe SARL",
  address: "1 rue de la Paix, 75002 Paris",
  street_address: "rue de la Paix",
  street_number: "1",
  postal_code: "75002",
  city: "Paris",
  country: "FR",
  created_at: new Date("2026-11-01T09:00:00Z"),
  updated_at: new Date("2026-11-02T09:00:00Z"),
});
const janeDebts = [await rows.debt(acme, { debtor_id: jane }), await rows.debt(acme, { debtor_id: jane })];
await rows.debt(acme); // a debt without a debtor
const bob = await rows.debtor(acme, { firstname: "Bob" });
const carol = await rows.debtor(acme, { firstname: "Carol" });
const carolDebt = await rows.debt(acme, { debtor_id: carol });
const globexDebtor = await rows.debtor(globex, { firstname: "Gus" });
await rows.debt(globex, { debtor_id: globexDebtor });

const janeView = {
  id: ids.encode("debtor", jane),
  debtor_reference: "CUST-1",
  civility: "Ms",
  firstname: "Jane",
  lastname: "Doe",
  email: "jane@example.com",
  phone: "+33612345678",
  birthdate: "1980-02-29",
  debtor_company: "Doe SARL",
  address: "1 rue de la Paix, 75002 Paris",
  street_address: "rue de la Paix",
  street_number: "1",
  postal_code: "75002",
  city: "Paris",
  country: "FR",
  debt_ids: janeDebts.map((key) => ids.encode("debt", key)),
  debts_count: 2,
  created_at: "2026-11-01T09:00:00+00:00",
  updated_at: "2026-11-02T09:00:00+00:00",
};

describe("GET /debtors", () => {
  it("lists the company's debtors oldest first with their debts, never another company's", async () => {
    const response = await t.get(LIST, token);
    expect(response.status).toBe(200);
    const body = await expectContract(response, "get", LIST);
    expect(body.pagination).toEqual({ total: 3, page: 1, limit: 20, pages: 1 });
    expect(body.data[0]).toEqual(janeView);
    expect(body.data[1]).toMatchObject({
      id: ids.encode("debtor", bob),
      firstname: "Bob",
      lastname: null,
      debt_ids: [],
      debts_count: 0,
    });
    expect(body.data[2]).toMatchObject({
      id: ids.encode("debtor", carol),
      debt_ids: [ids.encode("debt", carolDebt)],
      debts_count: 1,
    });
    expect(body.data.map((debtor: { id: string }) => debtor.id)).not.toContain(ids.encode("debtor", globexDebtor));
  });

  it("paginates and validates page and limit", async () => {
    const page2 = await expectContract(await t.get(`${LIST}?limit=2&page=2`, token), "get", LIST);
    expect(page2.data.map((debtor: { id: string }) => debtor.id)).toEqual([ids.encode("debtor", carol)]);
    expect(page2.pagination).toEqual({ total: 3, page: 2, limit: 2, pages: 2 });
    const past = await expectContract(await t.get(`${LIST}?limit=2&page=5`, token), "get", LIST);
    expect(past).toEqual({ error: false, data: [], pagination: { total: 3, page: 5, limit: 2, pages: 2 } });
    const bad = await t.get(`${LIST}?limit=abc&page=1.5`, token);
    expect(bad.status).toBe(400);
    expect(Object.keys((await expectContract(bad, "get", LIST)).details).sort()).toEqual(["limit", "page"]);
  });

  it("requires debtors:read", async () => {
    const response = await t.get(LIST, await t.token(acme, "debts:read debtors:write"));
    expect(response.status).toBe(403);
    expect(await expectContract(response, "get", LIST)).toEqual({
      error: true,
      message: 'Required scope "debtors:read" not found in token',
      code: 403,
    });
  });
});

describe("GET /debtors/{id}", () => {
  it("returns one debtor with its debts", async () => {
    const response = await t.get(`${LIST}/${ids.encode("debtor", jane)}`, token);
    expect(response.status).toBe(200);
    expect(await expectContract(response, "get", ONE)).toEqual({
      error: false,
      message: "Debtor retrieved successfully",
      data: janeView,
    });
  });

  it("answers 404 `Debtor not found` for another company's, unknown, forged and other-kind ids", async () => {
    for (const id of [
      ids.encode("debtor", globexDebtor),
      ids.encode("debtor", 987_654),
      "garbage",
      ids.encode("debt", janeDebts[0]!),
    ]) {
      const response = await t.get(`${LIST}/${id}`, token);
      expect(response.status, id).toBe(404);
      expect(await expectContract(response, "get", ONE)).toEqual({
        error: true,
        message: "Debtor not found",
        code: 404,
      });
    }
  });

  it("requires debtors:read", async () => {
    const response = await t.get(`${LIST}/${ids.encode("debtor", jane)}`, await t.token(acme, "debts:read"));
    expect(response.status).toBe(403);
    expect((await expectContract(response, "get", ONE)).message).toBe(
      'Required scope "debtors:read" not found in token',
    );
  });
});
