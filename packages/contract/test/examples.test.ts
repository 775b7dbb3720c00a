/**
 * Every operation's example is whole and true to its schemas: the path
 * parameters decode with the operation's path schema, the query with its
 * query schema, the request body with its body schema (snapshot rows also
 * pass the domain's row rules, which the api applies to them), and the
 * answer with its success schema; no field the schema does not declare, no
 * empty placeholder. The document carries them, and a `@dc/client` code
 * sample, on every operation. Each webhook event's payload example decodes
 * with the event's schema. The schemas carry no library labels as titles.
 */
import { Snapshot } from "@dc/domain";
import { Either, ParseResult, Schema } from "effect";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../src/document.ts";
import { operationExamples } from "../src/examples/operations.ts";
import { webhookEventExamples } from "../src/examples/webhook-events.ts";
import { authorizationFormExample } from "../src/examples/account.ts";
import { endpoints, pages } from "../src/index.ts";
import { webhookEventTypes, webhookPayload } from "../src/webhooks.ts";

const strict = { errors: "all", onExcessProperty: "error" } as const;

/** The decode failure of `value`, as text, or `undefined` when it decodes. */
const problemOf = (schema: Schema.Schema.Any | undefined, value: unknown): string | undefined => {
  if (schema === undefined) return "no schema to decode with";
  const result = Schema.decodeUnknownEither(schema as Schema.Schema<unknown, unknown>)(value, strict);
  return Either.isLeft(result) ? ParseResult.TreeFormatter.formatErrorSync(result.left) : undefined;
};

/** Every string inside `value`. */
const strings = (value: unknown): string[] =>
  typeof value === "string"
    ? [value]
    : Array.isArray(value)
      ? value.flatMap(strings)
      : typeof value === "object" && value !== null
        ? Object.values(value).flatMap(strings)
        : [];

const asStrings = (record: Readonly<Record<string, string | number>>) =>
  Object.fromEntries(Object.entries(record).map(([name, value]) => [name, String(value)]));

describe("operation examples", () => {
  for (const [operationId, endpoint] of Object.entries(endpoints)) {
    const example = operationExamples[operationId as keyof typeof operationExamples] as {
      path?: Record<string, string | number>;
      query?: Record<string, string | number>;
      request?: unknown;
      response: unknown;
    };

    it(`${operationId}: decode with the operation's schemas`, () => {
      const placeholders = [example.path, example.query, example.request, example.response]
        .flatMap(strings)
        .filter((text) => text.trim() === "");
      expect(placeholders).toEqual([]);
      const templated = [...endpoint.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(Object.keys(example.path ?? {}).sort()).toEqual(templated.sort());
      if (endpoint.params !== undefined)
        expect(problemOf(endpoint.params, asStrings(example.path ?? {}))).toBeUndefined();
      if (example.query !== undefined) expect(problemOf(endpoint.query, asStrings(example.query))).toBeUndefined();
      expect("request" in example).toBe(endpoint.body !== undefined);
      if (endpoint.body !== undefined) expect(problemOf(endpoint.body.schema, example.request)).toBeUndefined();
      expect(problemOf(endpoint.success.schema, example.response)).toBeUndefined();
    });
  }

  it("send snapshot rows the domain's rules accept", () => {
    for (const operationId of ["submitSnapshot", "uploadSnapshotChunk"] as const) {
      const { rows } = operationExamples[operationId].request;
      const checked = Snapshot.validateRows(rows, { firstRowIndex: 0 });
      expect([...checked.errors, ...Snapshot.checkAcrossRows(checked.rows)]).toEqual([]);
      expect(checked.rows.length).toBe(rows.length);
    }
  });

  it("are in the document beside each operation, with a @dc/client code sample", () => {
    const document = openApiDocument() as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            requestBody?: { content: Record<string, { example?: unknown }> };
            responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
            "x-codeSamples"?: Array<{ lang: string; label: string; source: string }>;
          }
        >
      >;
    };
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    for (const [operationId, endpoint] of Object.entries(endpoints)) {
      const operation = operations.find((candidate) => candidate.operationId === operationId);
      const example = operationExamples[operationId as keyof typeof operationExamples] as {
        request?: unknown;
        response: unknown;
      };
      expect(
        operation?.responses[String(endpoint.success.status)]?.content?.["application/json"]?.example,
        operationId,
      ).toEqual(example.response);
      if (endpoint.body !== undefined) {
        expect(operation?.requestBody?.content[endpoint.body.contentType]?.example, operationId).toEqual(
          example.request,
        );
      }
      const samples = operation?.["x-codeSamples"] ?? [];
      expect(
        samples.map((sample) => [sample.lang, sample.label]),
        operationId,
      ).toEqual([["TypeScript", "@dc/client"]]);
      expect(samples[0]?.source, operationId).toContain('from "@dc/client"');
    }
  });
});

describe("the authorization form's example", () => {
  it("decodes with the form's schema and is the document's example", () => {
    expect(problemOf(pages.submitAuthorization.body?.schema, authorizationFormExample)).toBeUndefined();
    const document = openApiDocument() as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { example?: unknown }> } }>>;
    };
    const form =
      document.paths["/oauth/authorize"]?.["post"]?.requestBody?.content["application/x-www-form-urlencoded"];
    expect(form?.example).toEqual(authorizationFormExample);
  });
});

describe("webhook event examples", () => {
  for (const type of webhookEventTypes) {
    it(`${type}: decodes with the event's payload schema and is the document's example`, () => {
      const example = webhookEventExamples[type];
      expect(strings(example).filter((text) => text.trim() === "")).toEqual([]);
      expect(problemOf(webhookPayload(type), example)).toBeUndefined();
      const document = openApiDocument() as {
        webhooks: Record<string, { post: { requestBody: { content: Record<string, { example?: unknown }> } } }>;
      };
      expect(document.webhooks[type]?.post.requestBody.content["application/json"]?.example).toEqual(example);
    });
  }
});

describe("the document's schemas", () => {
  it("carry no title: the schema library's labels (maxLength(255), int, nonNegative...) are not the API's", () => {
    const titles: string[] = [];
    const walk = (value: unknown, path: string): void => {
      if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${path}/${index}`));
      else if (typeof value === "object" && value !== null) {
        for (const [key, child] of Object.entries(value)) {
          if (key === "title" && typeof child === "string") titles.push(`${path}: ${child}`);
          else if (key !== "example" && key !== "x-codeSamples") walk(child, `${path}/${key}`);
        }
      }
    };
    const document = openApiDocument() as Record<string, unknown>;
    for (const part of ["paths", "webhooks", "components"]) walk(document[part], part);
    expect(titles).toEqual([]);
  });
});
