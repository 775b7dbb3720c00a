/**
 * `paginate` over real list operations, by cursor: every item of every page
 * once, in the api's order, one request per page, even with rows created
 * mid-walk; a walk resumes from a cursor; a failing page throws.
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
    for await (const debt of paginate((cursor) => api.GET("/external-api/v1/debts", { params: { query: { cursor, limit: 3 } } }))) {
      ids.push(debt.id);
    }
    expect(ids).toHaveLength(7);
    expect(new Set(ids)).toEqual(new Set(created));
    expect(wire.count("GET", "/external-api/v1/debts") - before).toBe(3);
  });

  it("yields whole pages with their pagination", async () => {
    const pages = [];
    for await (const page of paginatePages((cursor) =>
      api.GET("/external-api/v1/debts/by-creditor/{creditorId}", {
        params: { path: { creditorId: tenant.creditor_id }, query: { cursor, limit: 5 } },
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
    for await (const item of paginate((cursor) => api.GET("/external-api/v1/followups", { params: { query: { cursor } } }))) items.push(item);
    expect(items).toEqual([]);
    expect(wire.count("GET", "/external-api/v1/followups") - before).toBe(1);
  });

  it("throws a DebtCollectionError when a page fails", async () => {
    const iterate = async () => {
      for await (const _ of paginate((cursor) => api.GET("/external-api/v1/debts", { params: { query: { cursor, limit: 500 } } }))) {
        // unreachable
      }
    };
    const failure = await iterate().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DebtCollectionError);
    expect((failure as DebtCollectionError).error).toMatchObject({ kind: "api", status: 400, details: { limit: expect.any(String) } });
  });

  it("neither repeats nor skips a debt when one is created mid-walk, and resumes from a cursor", async () => {
    const pages = paginatePages((cursor) => api.GET("/external-api/v1/debts", { params: { query: { cursor, limit: 3 } } }));
    const first = (await pages.next()).value!;
    const late = unwrap(await api.POST("/external-api/v1/debts", { body: { amount: 1, currency: "EUR", firstname: "Late", lastname: "Comer" } }));
    const ids = [...first.data.map((debt) => debt.id)];
    for await (const page of pages) ids.push(...page.data.map((debt) => debt.id));
    // Newest first: the late debt sorts before the walk's position, and no debt moves across a page boundary.
    expect(ids).toEqual([...created].reverse());
    const resumed: string[] = [];
    for await (const debt of paginate((cursor) => api.GET("/external-api/v1/debts", { params: { query: { cursor, limit: 3 } } }), {
      cursor: first.pagination.next_cursor!,
    })) {
      resumed.push(debt.id);
    }
    expect(resumed).toEqual([...created].reverse().slice(3));
    expect(ids).not.toContain(late.data.id);
  });

  it("throws a TypeError when fetchPage reads by page number instead of its cursor", async () => {
    const iterate = async () => {
      for await (const _ of paginate(() => api.GET("/external-api/v1/debts", { params: { query: { limit: 3 } } }))) {
        // one page at most
      }
    };
    await expect(iterate()).rejects.toThrow(TypeError);
  });
});
