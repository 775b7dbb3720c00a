/**
 * `paginate` over real list operations: every item of every page once, in
 * the api's order, one request per page; a failing page throws.
 */
import { describe, expect, it } from "vitest";
import { createClient, DebtCollectionError, paginate, paginatePages, unwrap } from "../src/index.ts";
import { startSystem } from "./support/processes.ts";
import { recordingFetch } from "./support/recording-fetch.ts";

const { baseUrl, tenant } = await startSystem("Many Pages SARL");
const wire = recordingFetch();
const api = createClient({ baseUrl, clientId: tenant.client_id, clientSecret: tenant.client_secret, fetch: wire.fetch });

const created: string[] = [];
for (let i = 1; i <= 7; i++) {
  const debt = unwrap(
    await api.POST("/external-api/v1/debts", {
      body: { amount: 100 + i, currency: "EUR", internal_id: `PAGE-${i}`, firstname: "Page", lastname: `Number ${i}` },
    }),
  );
  created.push(debt.data.id);
}

describe("paginate", () => {
  it("yields every debt of every page, one request per page", async () => {
    const before = wire.count("GET", "/external-api/v1/debts");
    const ids: string[] = [];
    for await (const debt of paginate((page) => api.GET("/external-api/v1/debts", { params: { query: { page, limit: 3 } } }))) {
      ids.push(debt.id);
    }
    expect(ids).toHaveLength(7);
    expect(new Set(ids)).toEqual(new Set(created));
    expect(wire.count("GET", "/external-api/v1/debts") - before).toBe(3);
  });

  it("yields whole pages with their pagination", async () => {
    const pages = [];
    for await (const page of paginatePages((n) =>
      api.GET("/external-api/v1/debts/by-creditor/{creditorId}", {
        params: { path: { creditorId: tenant.creditor_id }, query: { page: n, limit: 5 } },
      }),
    )) {
      pages.push({ page: page.pagination.page, items: page.data.length, pages: page.pagination.pages, total: page.pagination.total });
    }
    expect(pages).toEqual([
      { page: 1, items: 5, pages: 2, total: 7 },
      { page: 2, items: 2, pages: 2, total: 7 },
    ]);
  });

  it("makes one request for an empty list", async () => {
    const before = wire.count("GET", "/external-api/v1/followups");
    const items = [];
    for await (const item of paginate((page) => api.GET("/external-api/v1/followups", { params: { query: { page } } }))) items.push(item);
    expect(items).toEqual([]);
    expect(wire.count("GET", "/external-api/v1/followups") - before).toBe(1);
  });

  it("throws a DebtCollectionError when a page fails", async () => {
    const iterate = async () => {
      for await (const _ of paginate((page) => api.GET("/external-api/v1/debts", { params: { query: { page, limit: 500 } } }))) {
        // unreachable
      }
    };
    const failure = await iterate().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DebtCollectionError);
    expect((failure as DebtCollectionError).error).toMatchObject({ kind: "api", status: 400, details: { limit: expect.any(String) } });
  });
});
