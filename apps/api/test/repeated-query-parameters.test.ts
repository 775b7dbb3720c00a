/**
 * A query parameter sent twice (`?page=1&page=2`) cannot be read as one
 * value: every operation that answers JSON and takes query parameters
 * answers it with `400 Validation failed` naming the parameter, and so must
 * document a 400. Swept over the OpenAPI document, so an operation added
 * later is covered. The pages that answer browsers and mail clients (the
 * document declares no JSON answer of theirs) have their own answer to a
 * repeated parameter, tested with each page (docs/decisions/0686).
 */
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { answersJson, documentedOperations, fillPath } from "./support/isolation/operations.ts";

const t = await startTestApi();
const tenant = await t.tenant("Repeated Query");
const token = await t.token(tenant);

const withQuery = documentedOperations().filter((operation) => operation.queryParameters.length > 0);
/** Operations whose query parameters the JSON router decodes. */
const operations = withQuery.filter(answersJson);

/** The pages with query parameters, and the test of their answer to a repeated one. */
const pagesTestedElsewhere: Readonly<Record<string, string>> = {
  authorize: "oauth-authorize-requests.test.ts",
  openEmailPixel: "email-outcomes.test.ts",
  followEmailLink: "email-outcomes.test.ts",
  showEmailUnsubscribe: "email-outcomes.test.ts",
  unsubscribeFromEmail: "email-outcomes.test.ts",
  showDebtorPage: "debtor-page.test.ts",
};

describe("a repeated query parameter", () => {
  it("is swept over every JSON operation with query parameters; the pages left out are tested with each page", () => {
    expect(operations.map((operation) => operation.operationId)).toEqual(
      expect.arrayContaining(["listCreditors", "listDebts", "listFollowups", "replayWebhookEvent", "getMedia"]),
    );
    expect(
      withQuery.filter((operation) => !answersJson(operation)).map((operation) => operation.operationId).sort(),
    ).toEqual(Object.keys(pagesTestedElsewhere).sort());
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
