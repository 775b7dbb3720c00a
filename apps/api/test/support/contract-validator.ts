/**
 * Validates response bodies against the committed OpenAPI document, so the
 * document cannot drift from what the server sends. Every HTTP test reads its
 * bodies through `expectContract`, which also holds that the headers the
 * document declares per response (Location, Retry-After, RateLimit-*,
 * WWW-Authenticate) are not sent where it does not declare them, and that
 * the headers it marks required (Location) are sent, and that a header it
 * declares with one fixed value (Cache-Control, Referrer-Policy) has it.
 */
import { openApiDocument } from "@dc/contract/document";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { expect } from "vitest";

interface DocumentedResponse {
  readonly headers?: Record<string, unknown>;
  readonly content?: Record<string, { readonly examples?: Record<string, { readonly value?: unknown }> }>;
}
const document = openApiDocument() as {
  paths: Record<string, Record<string, { responses: Record<string, DocumentedResponse> }>>;
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
  const contradicted = declaredHeaders
    .map(([name, header]) => [name, (header as { schema?: { const?: unknown } }).schema?.const] as const)
    .filter(([name, value]) => value !== undefined && response.headers.has(name) && response.headers.get(name) !== value)
    .map(([name, value]) => `${name}: ${response.headers.get(name)} (documented as always ${String(value)})`);
  expect(contradicted, `${method} ${path} ${status} sends a header value the document rules out`).toEqual([]);
  const validate = ajv.compile({
    $ref: `openapi.json#/${pointer("paths", path, method.toLowerCase(), "responses", status, "content", "application/json", "schema")}`,
  });
  const valid = validate(body);
  expect(valid ? [] : validate.errors, `${method} ${path} ${status} body does not match the document: ${JSON.stringify(body).slice(0, 500)}`).toEqual([]);
  const answered = errorOf(body);
  if (answered !== undefined) {
    const documented = Object.values(operation!.responses[status]?.content?.["application/json"]?.examples ?? {}).flatMap(
      (example) => errorOf(example.value) ?? [],
    );
    expect(
      documented.some((candidate) => sameError(candidate, answered)),
      `${method} ${path} ${status} does not document this error among its examples: ${JSON.stringify(answered)} is none of ${JSON.stringify(documented)}`,
    ).toBe(true);
  }
  return body;
};

/**
 * What names an error among an operation's documented errors of one status:
 * the envelope's `message` and `error_code`, or the OAuth `error`. The schema
 * alone cannot tell two errors of a status apart (`rate_limited` and
 * `too_many_concurrent_requests` share one), so every error answer must also
 * be one of the document's examples for its status.
 */
interface AnsweredError {
  readonly message?: unknown;
  readonly error_code?: unknown;
  readonly error?: unknown;
}

const errorOf = (body: unknown): AnsweredError | undefined => {
  if (typeof body !== "object" || body === null) return undefined;
  const fields = body as Record<string, unknown>;
  if (fields["error"] === true) return { message: fields["message"], error_code: fields["error_code"] };
  if (typeof fields["error"] === "string") return { error: fields["error"] };
  return undefined;
};

/** The same error: equal codes, and messages equal but for their numbers (`Chunk 3 is out of order: next_chunk_index is 1`). */
const sameError = (documented: AnsweredError, answered: AnsweredError): boolean => {
  if (documented.error !== answered.error || documented.error_code !== answered.error_code) return false;
  if (typeof documented.message !== "string" || typeof answered.message !== "string") return documented.message === answered.message;
  const digitsAsWildcards = documented.message
    .split(/\d+/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("\\d+");
  return new RegExp(`^${digitsAsWildcards}$`).test(answered.message);
};
