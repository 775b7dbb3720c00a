/**
 * A query parameter sent twice (`?page=1&page=2`) cannot be read as one
 * value: every operation that takes query parameters answers it with
 * `400 Validation failed` naming the parameter, and so must document a 400.
 * Swept over the OpenAPI document, so an operation added later is covered.
 */
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { documentedOperations, fillPath } from "./support/isolation/operations.ts";

const t = await startTestApi();
const tenant = await t.tenant("Repeated Query");
const token = await t.token(tenant);

/** Operations whose query parameters the JSON router decodes (the authorization page answers in HTML). */
const operations = documentedOperations().filter(
  (operation) => operation.queryParameters.length > 0 && operation.path !== "/oauth/authorize",
);

describe("a repeated query parameter", () => {
  it("is swept over every operation with query parameters", () => {
    expect(operations.map((operation) => operation.operationId)).toEqual(
      expect.arrayContaining(["listCreditors", "listDebts", "listFollowups", "replayWebhookEvent"]),
    );
  });

  for (const operation of operations) {
    const name = operation.queryParameters[0]!;
    it(`${operation.method.toUpperCase()} ${operation.path} (${operation.operationId}) answers ${name} twice with a documented 400 naming it`, async () => {
      // Path parameters only need to be well-formed: the query is decoded before any of them is looked up.
      const path = fillPath(
        operation.path,
        Object.fromEntries(
          operation.pathParameters.map((parameter) => [parameter, parameter === "chunkIndex" ? "0" : "dummy"]),
        ),
      );
      const response = await t.request(`${path}?${name}=1&${name}=2`, {
        method: operation.method.toUpperCase(),
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(400);
      const body = await expectContract(response, operation.method, operation.path);
      expect(body).toMatchObject({ error: true, code: 400, message: "Validation failed" });
      expect(body.details).toHaveProperty([name]);
    });
  }
});
