/**
 * Body keys and query parameters named like the properties every JavaScript
 * object inherits (`constructor`, `toString`, `__proto__`...) are named in
 * the 400 like any other: the details of a refusal are built as the
 * object's own properties, so an inherited one cannot hide the problem
 * (DESIGN 3: bad input gets a 4xx naming the field).
 */
import { describe, expect, it } from "vitest";
import { expectContract } from "./support/contract-validator.ts";
import { startTestApi } from "./support/harness.ts";
import { jsonApi, rowCounts } from "./support/json-api.ts";

const t = await startTestApi();
const api = jsonApi(t.request);
const acme = await t.tenant("Acme Collections");
const token = await t.token(acme, "debts:read debts:write");

const ENDPOINTS = "/external-api/v1/webhooks/endpoints";
const BATCH = "/external-api/v1/debts/batch";
const INHERITED = ["constructor", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"];

const endpointCount = async () =>
  Number(
    (
      await t.db
        .selectFrom("webhook_endpoints")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe("an unknown body key named like an inherited property", () => {
  it.each(INHERITED)("%s is a 400 naming it, and nothing is written", async (key) => {
    const response = await api.post(ENDPOINTS, token, { url: "http://127.0.0.1:9/hooks", [key]: 1 });
    expect(response.status).toBe(400);
    const body = await expectContract<{ details: Record<string, string> }>(response, "post", ENDPOINTS);
    expect(body).toEqual({
      error: true,
      message: "Validation failed",
      code: 400,
      details: { [key]: `unknown field "${key}"` },
      errors: [{ property: key, message: `unknown field "${key}"` }],
    });
    expect(await endpointCount()).toBe(0);
  });

  it("fails a batch entry naming it, beside the entry's other problems", async () => {
    const before = (await rowCounts(t.db)).debts;
    const response = await api.post(BATCH, token, {
      debts: [
        { temp_id: "a", lastname: "Smith", amount: 10, currency: "EUR", constructor: "x" },
        { temp_id: "b", toString: 1 },
      ],
    });
    expect(response.status).toBe(201);
    const { data } = await expectContract<{ data: { failed: Array<{ temp_id: string; errors: unknown }> } }>(
      response,
      "post",
      BATCH,
    );
    expect(data.failed).toEqual([
      {
        index: 0,
        temp_id: "a",
        status: "error",
        errors: [{ property: "constructor", message: 'unknown field "constructor"' }],
      },
      {
        index: 1,
        temp_id: "b",
        status: "error",
        errors: expect.arrayContaining([{ property: "toString", message: 'unknown field "toString"' }]),
      },
    ]);
    expect((await rowCounts(t.db)).debts).toBe(before);
  });
});

describe("a query parameter named __proto__", () => {
  it("holding a NUL character is a 400 naming it, as any other parameter", async () => {
    const response = await api.get(`${ENDPOINTS}?__proto__=%00`, token);
    expect(response.status).toBe(400);
    expect(await expectContract(response, "get", ENDPOINTS)).toEqual({
      error: true,
      message: "Validation failed",
      code: 400,
      // A computed key: a literal `__proto__:` would set the prototype instead.
      details: { ["__proto__"]: "must not contain NUL characters" },
      errors: [{ property: "__proto__", message: "must not contain NUL characters" }],
    });
  });
});
