/**
 * Page size on every list operation (contract 4.9 and part 8: default 20,
 * maximum 100; docs/decisions/0003: out of range is a 400 naming the
 * parameter, never clamped), found by walking the OpenAPI document: every
 * GET whose answer carries `pagination` (a new list is covered without
 * touching this file).
 */
import { openApiDocument } from "@dc/contract/document";
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi } from "./support/json-api.ts";

const t = await startTestApi();
const api = jsonApi(t.request);
const tenant = await t.tenant("Paging Corp");
const liveToken = await t.token(tenant);
/** The lists that exist only for sandbox companies are read by one. */
const sandboxToken = await t.token(await t.sandboxTenant("Paging Sandbox"));
const sandboxLists = new Set(["listSandboxMessages"]);

const created = await api.post("/external-api/v1/debts", liveToken, {
  creditor_id: tenant.creditor_id,
  firstname: "Ada",
  lastname: "Paged",
  amount: 10,
  currency: "EUR",
  debtor_reference: "PAGED-1",
});
expect(created.status).toBe(201);
const debt = ((await created.json()) as { data: { id: string; debtor_id: string } }).data;
const hook = await api.post("/external-api/v1/webhooks/endpoints", liveToken, { url: "http://127.0.0.1:9/paged" });
expect(hook.status).toBe(201);
const hookId = ((await hook.json()) as { data: { id: string } }).data.id;

/** An id of this company for each path parameter of a list (`id`: the debt, or the webhook endpoint). */
const pathValues: Record<string, string> = {
  creditorId: tenant.creditor_id,
  debtId: debt.id,
  debtorId: debt.debtor_id,
};

type Operation = {
  operationId: string;
  parameters?: Array<{ name: string; in: string }>;
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
};
const document = openApiDocument() as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};
const resolve = (schema: Record<string, unknown>): Record<string, unknown> =>
  typeof schema["$ref"] === "string"
    ? resolve(document.components.schemas[schema["$ref"].split("/").at(-1)!]!)
    : schema;

const lists = Object.entries(document.paths).flatMap(([path, methods]) => {
  const operation = methods["get"];
  const success = operation?.responses["200"]?.content?.["application/json"]?.schema;
  if (operation === undefined || success === undefined) return [];
  const properties = (resolve(success)["properties"] ?? {}) as Record<string, unknown>;
  return "pagination" in properties ? [{ path, operationId: operation.operationId }] : [];
});

const fill = (operationId: string, path: string) =>
  path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    name === "id" ? (operationId === "listWebhookDeliveries" ? hookId : debt.id) : pathValues[name]!,
  );

describe("page size of every list operation", () => {
  it("finds the lists of the contract", () => {
    expect(lists.map((list) => list.operationId)).toEqual(
      expect.arrayContaining([
        "listCreditors",
        "listDebtsByCreditor",
        "listDebtsByCreditorAlias",
        "listFollowups",
        "listDebts",
      ]),
    );
  });

  describe.each(lists)("$operationId", ({ path, operationId }) => {
    const url = fill(operationId, path);
    const token = sandboxLists.has(operationId) ? sandboxToken : liveToken;

    it("pages by 20 by default and by 100 at most; 101, 0 and page 0 are a 400 naming the parameter", async () => {
      const plain = await t.get(url, token);
      expect(plain.status).toBe(200);
      expect(
        (await expectContract<{ pagination: { page: number; limit: number } }>(plain, "get", path)).pagination,
      ).toMatchObject({
        page: 1,
        limit: 20,
      });
      const most = await t.get(`${url}?limit=100`, token);
      expect(most.status).toBe(200);
      expect((await expectContract<{ pagination: { limit: number } }>(most, "get", path)).pagination.limit).toBe(100);
      for (const [query, parameter] of [
        ["limit=101", "limit"],
        ["limit=0", "limit"],
        ["page=0", "page"],
      ] as const) {
        const refused = await t.get(`${url}?${query}`, token);
        expect(refused.status, query).toBe(400);
        expect(Object.keys((await expectContract<{ details: object }>(refused, "get", path)).details)).toEqual([
          parameter,
        ]);
      }
    });
  });
});
