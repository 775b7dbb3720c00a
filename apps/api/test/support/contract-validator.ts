/**
 * Validates response bodies against the committed OpenAPI document, so the
 * document cannot drift from what the server sends. Every HTTP test reads its
 * bodies through `expectContract`, which also holds that the headers the
 * document declares per response (Location, Retry-After, RateLimit-*,
 * WWW-Authenticate) are not sent where it does not declare them, and that
 * the headers it marks required (Location) are sent.
 */
import { openApiDocument } from "@dc/contract/document";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { expect } from "vitest";

const document = openApiDocument() as {
  paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
ajv.addSchema(document, "openapi.json");

/** Headers whose presence the document declares per response: a response may only send those declared for it. */
const DECLARED_HEADERS = ["location", "retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "www-authenticate"];

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
  const declaredHeaders = Object.entries(operation!.responses[status]?.headers ?? {});
  const declared = declaredHeaders.map(([name]) => name.toLowerCase());
  const undeclared = DECLARED_HEADERS.filter((name) => response.headers.has(name) && !declared.includes(name));
  expect(undeclared, `${method} ${path} ${status} sends headers the document does not declare`).toEqual([]);
  const missing = declaredHeaders
    .filter(([name, header]) => (header as { required?: boolean }).required === true && !response.headers.has(name))
    .map(([name]) => name);
  expect(missing, `${method} ${path} ${status} lacks headers the document requires`).toEqual([]);
  const validate = ajv.compile({
    $ref: `openapi.json#/${pointer("paths", path, method.toLowerCase(), "responses", status, "content", "application/json", "schema")}`,
  });
  const valid = validate(body);
  expect(valid ? [] : validate.errors, `${method} ${path} ${status} body does not match the document: ${JSON.stringify(body).slice(0, 500)}`).toEqual([]);
  return body;
};
