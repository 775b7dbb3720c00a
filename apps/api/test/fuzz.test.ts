/**
 * Fuzzing every operation of the OpenAPI document with malformed and boundary
 * requests (fast-check): never a 500, always the contract's envelope, and no
 * row written when a request is rejected. Bounded for CI by FUZZ_RUNS.
 */
import fc from "fast-check";
import { openApiDocument } from "@dc/contract/document";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { stripeSignatureHeader } from "../src/debtor-page/stripe-signature.ts";
import { startTestApi } from "./support/harness.ts";

const RUNS_PER_OPERATION = Number(process.env["FUZZ_RUNS"] ?? 40);

interface Parameter {
  name: string;
  in: "path" | "query";
  schema: JsonSchema;
}
interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  $ref?: string;
  anyOf?: JsonSchema[];
}
interface Operation {
  operationId: string;
  security: unknown[];
  parameters: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, unknown>;
}

const document = openApiDocument() as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
};
const resolve = (schema: JsonSchema): JsonSchema =>
  schema.$ref === undefined ? schema : resolve(document.components.schemas[schema.$ref.split("/").at(-1)!] ?? {});

const t = await startTestApi();
/**
 * The api with the payment provider and the e-mail webhook configured, so
 * their webhooks reach the body's validation rather than answering that
 * they are off.
 */
const STRIPE_WEBHOOK_SECRET = "whsec_fuzz_secret";
const POSTMARK_CREDENTIALS = "postmark:fuzz-password-0123456789";
const api = await t.startAnotherApi({
  environment: {
    STRIPE_SECRET_KEY: "sk_test_fuzz_key",
    STRIPE_WEBHOOK_SECRET,
    POSTMARK_WEBHOOK_CREDENTIALS: POSTMARK_CREDENTIALS,
  },
});
afterAll(() => api.stop());
/**
 * The credential of each operation that takes no bearer token but one of
 * its own, given for the body sent: every request is authenticated, so the
 * fuzzer reaches what comes after the check.
 */
const credentials: Readonly<Record<string, (body: string) => Record<string, string>>> = {
  receivePostmarkWebhook: () => ({ authorization: `Basic ${Buffer.from(POSTMARK_CREDENTIALS).toString("base64")}` }),
  receiveStripeWebhook: (body) => ({
    "stripe-signature": stripeSignatureHeader(STRIPE_WEBHOOK_SECRET, body, Math.floor(t.clock.now().getTime() / 1000)),
  }),
};
const tenant = await t.tenant("Fuzz Target");
const token = await t.token(tenant);
const stranger = await t.tenant("Fuzz Stranger");

/** Ids the fuzzer mixes in: real ids of the tenant, ids of another company, and garbage. */
const idPool = [tenant.creditor_id, tenant.timeline_id, tenant.company_id, stranger.creditor_id, stranger.timeline_id, tenant.campaign_api_reference];
const hostileString = fc.oneof(
  fc.constantFrom("", " ", "0", "-1", "1e309", "NaN", "null", "true", "[]", "{}", "%00", "..%2F..%2Fetc%2Fpasswd", "'; drop table debts; --", "\u0000", "🦄", "a".repeat(5000)),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(...idPool),
);

/** A value for a schema: mostly plausible, often at or past its bounds, sometimes of the wrong type. */
const valueFor = (raw: JsonSchema, depth = 0): fc.Arbitrary<unknown> => {
  const schema = resolve(raw);
  const wrong = fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 20 }), fc.boolean(), fc.constant([]), fc.constant({}));
  if (depth > 3) return wrong;
  if (schema.anyOf !== undefined) return fc.oneof(...schema.anyOf.map((member) => valueFor(member, depth + 1)), wrong);
  if (schema.enum !== undefined) return fc.oneof(fc.constantFrom(...schema.enum), wrong);
  if (schema.const !== undefined) return fc.oneof(fc.constant(schema.const), wrong);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "integer":
    case "number": {
      const bounds = [schema.minimum, schema.maximum].filter((bound): bound is number => bound !== undefined);
      return fc.oneof(
        fc.integer({ min: -10, max: 1000 }),
        fc.constantFrom(...bounds.flatMap((bound) => [bound - 1, bound, bound + 1]), 0, -1, 2 ** 53, 1e308, 0.1 + 0.2),
        wrong,
      );
    }
    case "string":
      return fc.oneof(hostileString, fc.constantFrom("2026-11-21", "2026-02-30", "2026-11-21T10:00:00+00:00", "x@example.com", "EUR", "+33612345678"), wrong);
    case "boolean":
      return fc.oneof(fc.boolean(), wrong);
    case "array":
      return fc.oneof(fc.array(valueFor(schema.items ?? {}, depth + 1), { maxLength: 3 }), wrong);
    case "object": {
      const properties = Object.entries(schema.properties ?? {});
      if (properties.length === 0) return fc.oneof(fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }), wrong);
      const record = fc.record(Object.fromEntries(properties.map(([key, property]) => [key, valueFor(property, depth + 1)])), {
        requiredKeys: [],
      });
      return fc.oneof(
        record,
        record.map((value) => ({ ...(value as object), unexpected_key: 1 })),
        wrong,
      );
    }
    default:
      return wrong;
  }
};

const rawBodies = fc.constantFrom(
  "{",
  "not json",
  "",
  "null",
  "[]",
  '{"a":',
  `${"[".repeat(100)}${"]".repeat(100)}`,
  JSON.stringify({ deep: JSON.parse(`${"{\"a\":".repeat(40)}1${"}".repeat(40)}`) }),
  JSON.stringify({ long: "x".repeat(200_000) }),
);

const rowCounts = async (): Promise<string> => {
  const { rows } = await sql<{ counts: string }>`
    select concat_ws(',', (select count(*) from debts), (select count(*) from creditors), (select count(*) from followups),
      (select count(*) from payments), (select count(*) from snapshots), (select count(*) from snapshot_chunks),
      (select count(*) from debtors), (select count(*) from payment_plans), (select count(*) from oauth_clients),
      (select count(*) from users), (select count(*) from companies)) as counts`.execute(t.db);
  return rows[0]!.counts;
};

const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
);

describe("fuzzing every operation", () => {
  for (const { path, method, operation } of operations) {
    const contentType = Object.keys(operation.requestBody?.content ?? {})[0];
    const isPage = !Object.keys(operation.responses).some((status) => {
      const response = operation.responses[status] as { content?: Record<string, unknown> };
      return response.content?.["application/json"] !== undefined;
    });
    it(`${method} ${path} (${operation.operationId}) never fails with a 500 and always answers the contract's envelope`, async () => {
      const pathParameters = operation.parameters.filter((parameter) => parameter.in === "path");
      const queryParameters = operation.parameters.filter((parameter) => parameter.in === "query");
      const request = fc.record({
        path: fc.tuple(...pathParameters.map(() => hostileString), fc.constant(null)),
        query: fc.record(Object.fromEntries(queryParameters.map((parameter) => [parameter.name, valueFor(parameter.schema)])), { requiredKeys: [] }),
        body:
          contentType === undefined
            ? fc.constant(undefined)
            : fc.oneof(
                { weight: 3, arbitrary: valueFor(operation.requestBody!.content[contentType]!.schema).map((value) => JSON.stringify(value)) },
                { weight: 1, arbitrary: rawBodies },
              ),
        contentType: fc.constantFrom(contentType ?? "application/json", contentType ?? "application/json", "text/plain", "application/x-www-form-urlencoded"),
      });
      await fc.assert(
        fc.asyncProperty(request, async (input) => {
          let url = path;
          pathParameters.forEach((parameter, index) => {
            url = url.replace(`{${parameter.name}}`, encodeURIComponent(String(input.path[index])));
          });
          const query = new URLSearchParams(
            Object.entries(input.query).map(([name, value]): [string, string] => [name, typeof value === "string" ? value : JSON.stringify(value)]),
          ).toString();
          const before = await rowCounts();
          const sent =
            input.body === undefined
              ? undefined
              : contentType === "application/x-www-form-urlencoded"
                ? new URLSearchParams({ x: input.body }).toString()
                : input.body;
          const response = await fetch(`${api.url}${url}${query === "" ? "" : `?${query}`}`, {
            method,
            headers: {
              authorization: `Bearer ${token}`,
              ...(input.body === undefined ? {} : { "content-type": input.contentType }),
              ...credentials[operation.operationId]?.(sent ?? ""),
            },
            ...(sent === undefined ? {} : { body: sent }),
            redirect: "manual",
          });
          const text = await response.text();
          expect(response.status, `${method} ${url} -> ${response.status}: ${text.slice(0, 300)}`).not.toBe(500);
          expect(response.status).toBeLessThan(500);
          if (isPage || response.status === 302 || response.status === 303) return;
          const body = JSON.parse(text) as Record<string, unknown>;
          if (response.status >= 400) {
            if (path.startsWith("/oauth/") || path === "/token") {
              expect(typeof body["error"] === "boolean" || typeof body["error"] === "string").toBe(true);
            } else {
              expect(body).toMatchObject({ error: true, message: expect.any(String), code: response.status });
            }
            expect(await rowCounts(), `${method} ${url} was rejected (${response.status}) but wrote rows`).toBe(before);
          } else {
            expect(body["error"] ?? false).toBe(false);
          }
        }),
        { numRuns: RUNS_PER_OPERATION, seed: Number(process.env["FUZZ_SEED"] ?? 20261121), endOnFailure: true },
      );
    }, 120_000);
  }
});
