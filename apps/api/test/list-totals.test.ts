/**
 * A list's `pagination.total` describes the set its page was cut from
 * (contract 4.9, docs/decisions/0003), even while rows are being written.
 * `writeBetweenReads` commits an insert right after the request's first
 * statement on the listed table; were the count and the page two
 * statements, the page would hold one row more than the total.
 */
import { afterAll, describe, expect, it } from "vitest";
import { collectionRows } from "./support/collection-rows.ts";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { writeBetweenReads } from "./support/write-between-reads.ts";

const t = await startTestApi();
const { ids } = t.api.services;
const rows = collectionRows(t.db, ids);
const acme = await t.tenant("Acme Collections");
const token = await t.token(acme);
const company = rows.companyOf(acme);

// One connection: the handler's statements reach PostgreSQL one after another (see writeBetweenReads).
const serial = await t.startAnotherApi({ environment: { DATABASE_POOL_SIZE: "1" } });
afterAll(() => serial.stop());

const list = async (template: string, path = template) => {
  const response = await fetch(`${serial.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return expectContract<{ data: Array<{ id: string }>; pagination: { total: number } }>(response, "get", template);
};

describe("a list's total and page come from one snapshot", () => {
  it("GET /creditors (pageOfRows): a creditor created meanwhile is in both or in neither", async () => {
    for (const name of ["Second", "Third"]) {
      await t.db.insertInto("creditors").values({ company_id: company, name }).execute();
    }
    const body = await writeBetweenReads(
      t.databaseUrl,
      "creditors",
      () => list("/external-api/v1/creditors", "/external-api/v1/creditors?limit=100"),
      (writer) => writer.query("insert into creditors (company_id, name) values ($1, 'Meanwhile')", [company]),
    );
    expect(body.pagination).toEqual({ total: 3, page: 1, limit: 100, pages: 1 });
    expect(body.data).toHaveLength(3);
  });

  it("GET /followups: a followup created meanwhile is in both or in neither", async () => {
    const debt = await rows.debt(acme);
    for (let n = 0; n < 2; n += 1) await rows.followup(acme, debt);
    const body = await writeBetweenReads(
      t.databaseUrl,
      "followups",
      () => list("/external-api/v1/followups", "/external-api/v1/followups?limit=100"),
      (writer) =>
        writer.query("insert into followups (company_id, debt_id, type) values ($1, $2, 'sms')", [company, debt]),
    );
    expect(body.pagination).toEqual({ total: 2, page: 1, limit: 100, pages: 1 });
    expect(body.data).toHaveLength(2);
  });

  it("GET /debtors: a debtor created meanwhile is in both or in neither", async () => {
    for (let n = 0; n < 2; n += 1) await rows.debtor(acme);
    const body = await writeBetweenReads(
      t.databaseUrl,
      "debtors",
      () => list("/external-api/v1/debtors", "/external-api/v1/debtors?limit=100"),
      (writer) => writer.query("insert into debtors (company_id) values ($1)", [company]),
    );
    expect(body.pagination).toEqual({ total: 2, page: 1, limit: 100, pages: 1 });
    expect(body.data).toHaveLength(2);
  });
});
