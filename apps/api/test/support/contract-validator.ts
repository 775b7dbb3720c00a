/**
 * Validates response bodies against the committed OpenAPI document, so the
 * document cannot drift from what the server sends. Every HTTP test reads its
 * bodies through `expectContract`.
 */
import { openApiDocument } from "@dc/contract/document";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { expect } from "vitest";

const document = openApiDocument() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
ajv.addSchema(document, "openapi.json");

const pointer = (...segments: string[]) => segments.map((segment) => segment.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

/**
 * Reads the JSON body of `response` and asserts it matches the document's
 * schema for `method path` at the response's status (which must be documented).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert the body field by field right after
export const expectContract = async <T = any>(response: Response, method: string, path: string): Promise<T> => {
  const body = (await response.json()) as T;
  const operation = document.paths[path]?.[method.toLowerCase()];
  expect(operation, `${method} ${path} is not in the OpenAPI document`).toBeDefined();
  const status = String(response.status);
  expect(Object.keys(operation!.responses), `${method} ${path} does not document status ${status}`).toContain(status);
  const validate = ajv.compile({
    $ref: `openapi.json#/${pointer("paths", path, method.toLowerCase(), "responses", status, "content", "application/json", "schema")}`,
  });
  const valid = validate(body);
  expect(valid ? [] : validate.errors, `${method} ${path} ${status} body does not match the document: ${JSON.stringify(body).slice(0, 500)}`).toEqual([]);
  return body;
};
