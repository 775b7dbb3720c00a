/**
 * An id in the path that is not an id of ours (garbage, a NUL character, a
 * truncated id) is an unknown id: contract 7.1 answers an unknown creditor or
 * debt with 404, and 4.5 says "an unknown or invalid id returns 404" for the
 * debt delete. Swept over the OpenAPI document: every operation whose path
 * parameters are all encrypted ids must answer each such id with the 404 it
 * documents for an unknown id, in its documented envelope.
 */
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import {
  documentedForeignOutcome,
  fillPath,
  idBearingOperations,
  parameterKind,
} from "./support/isolation/operations.ts";

const t = await startTestApi();
const tenant = await t.tenant("Invalid Ids");
const token = await t.token(tenant);

/** Path parameter kinds that carry an encrypted id (snapshot references, chunk indexes and media keys do not). */
const ENCRYPTED_ID_KINDS = new Set([
  "debts/{id}",
  "debtId",
  "followups/{id}",
  "debtors/{id}",
  "debtorId",
  "creditors/{id}",
  "creditorId",
  "endpoints/{id}",
  "todos/{id}",
]);

/** A valid body for the operations that take one, so that only the id can be at fault. */
const bodies: Readonly<Record<string, unknown>> = {
  updateCreditor: { city: "Paris" },
  patchCreditor: { city: "Paris" },
  updateDebt: { city: "Paris" },
  patchDebt: { city: "Paris" },
  updateFollowup: { notes: "note" },
  patchFollowup: { notes: "note" },
  updateWebhookEndpoint: { description: "d" },
  pauseDebtTimeline: { reason: "r" },
  validateTodo: {},
  rejectTodo: {},
};

const operations = idBearingOperations().filter((operation) =>
  operation.pathParameters.every((name) => ENCRYPTED_ID_KINDS.has(parameterKind(operation.path, name))),
);

const invalidIds = {
  garbage: "not-an-id",
  "a NUL character": "\u0000",
  "a real id with a NUL character appended": `${tenant.creditor_id}\u0000`,
};

describe("an invalid id in the path is an unknown id", () => {
  it("sweeps the id-bearing operations of the document", () => {
    expect(operations.map((operation) => operation.operationId)).toEqual(
      expect.arrayContaining([
        "getCreditor",
        "updateCreditor",
        "getDebt",
        "deleteDebt",
        "listDebtPayments",
        "getFollowup",
      ]),
    );
  });

  for (const operation of operations) {
    for (const [label, id] of Object.entries(invalidIds)) {
      it(`${operation.method.toUpperCase()} ${operation.path} (${operation.operationId}) answers ${label} with its documented 404`, async () => {
        const expected = documentedForeignOutcome(operation);
        expect(expected, `${operation.operationId} documents no answer to an unknown id`).toBeDefined();
        const body = bodies[operation.operationId];
        expect(operation.hasBody ? body : undefined, `${operation.operationId} needs a body in this test`).toEqual(
          body,
        );
        const path = fillPath(operation.path, Object.fromEntries(operation.pathParameters.map((name) => [name, id])));
        const response = await t.request(path, {
          method: operation.method.toUpperCase(),
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        expect(response.status).toBe(expected!.status);
        expect(await expectContract(response, operation.method, operation.path)).toEqual({
          error: true,
          code: expected!.status,
          message: expected!.message,
        });
      });
    }
  }
});

describe("a NUL in a path parameter that is not an id", () => {
  it("is still refused with 400 naming it where the parameter is stored as text (the snapshot references)", async () => {
    const SNAPSHOT = "/external-api/v1/campaigns/{apiReference}/snapshots/{snapshotReference}";
    for (const [apiReference, snapshotReference, field] of [
      ["campaign\u0000", "ref-1", "apiReference"],
      [tenant.campaign_api_reference, "ref\u0000x", "snapshotReference"],
    ] as const) {
      const response = await t.get(fillPath(SNAPSHOT, { apiReference, snapshotReference }), token);
      expect(response.status).toBe(400);
      expect(await expectContract(response, "get", SNAPSHOT)).toMatchObject({
        error: true,
        code: 400,
        message: "Validation failed",
        details: { [field]: "must not contain NUL characters" },
      });
    }
  });
});
