/**
 * Every field of every body and query the contract declares, sent with a
 * value of the wrong type, is refused in the api's words (`must be a string`,
 * `must be a JSON object`, ...): never Effect's "Expected <schema>, actual
 * <value>", which named internal schemas and sent the value back whole
 * (docs/decisions/0211).
 */
import { endpoints } from "@dc/contract";
import { Either, Schema } from "effect";
import { describe, expect, it } from "vitest";
import { issueDetails } from "../src/http/decode.ts";

const SENTINEL = "SENTINEL-VALUE";
const wrongValues: ReadonlyArray<unknown> = [
  5,
  true,
  null,
  SENTINEL,
  [SENTINEL],
  { sent: SENTINEL },
  [{ sent: SENTINEL }],
];

type Decodable = Schema.Schema<unknown, unknown>;
const schemasOf = (endpoint: (typeof endpoints)[keyof typeof endpoints]) => {
  const parts = endpoint as unknown as {
    readonly body?: { readonly schema?: Decodable; readonly contentType?: string };
    readonly query?: Decodable;
  };
  return [
    ...(parts.body?.schema !== undefined ? [["body", parts.body.schema] as const] : []),
    ...(parts.query !== undefined && Schema.isSchema(parts.query) ? [["query", parts.query] as const] : []),
  ];
};

const fieldsOf = (schema: Decodable): ReadonlyArray<string> =>
  Object.keys((schema as unknown as { readonly fields?: Record<string, unknown> }).fields ?? {});

describe("a value of the wrong type", () => {
  const cases = Object.values(endpoints).flatMap((endpoint) =>
    schemasOf(endpoint).map(([part, schema]) => [`${endpoint.operationId} ${part}`, part, schema] as const),
  );

  it.each(cases)("%s: each field and the whole, refused with what it must be", (_name, part, schema) => {
    const inputs: Array<unknown> = [...wrongValues];
    for (const field of fieldsOf(schema)) for (const value of wrongValues) inputs.push({ [field]: value });
    for (const input of inputs) {
      const result = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(input);
      if (Either.isRight(result)) continue;
      const details = issueDetails(result.left, part);
      for (const [field, message] of Object.entries(details)) {
        expect(message, `${field} for ${JSON.stringify(input)}`).not.toMatch(/^Expected |, actual /);
        expect(message, `${field} for ${JSON.stringify(input)}`).not.toContain(SENTINEL);
      }
    }
  });
});
