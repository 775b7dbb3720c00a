/**
 * Reads a request body as raw bytes under a size limit. The raw bytes are
 * kept (snapshot idempotency hashes the exact bytes received), then parsed
 * according to the operation's declared content type.
 */
import type { IncomingMessage } from "node:http";
import getRawBody from "raw-body";
import { PayloadTooLarge, UnsupportedMediaType, ValidationFailed } from "./api-error.ts";

/** The media type of a Content-Type header, lower-cased, without parameters. */
export const mediaType = (header: string | undefined): string | undefined =>
  header?.split(";")[0]?.trim().toLowerCase() || undefined;

/** Reads at most `limitBytes`; an announced or actual larger body is PayloadTooLarge. */
export const readRawBody = async (request: IncomingMessage, limitBytes: number): Promise<Buffer> => {
  const announced = Number(request.headers["content-length"]);
  if (Number.isFinite(announced) && announced > limitBytes) throw new PayloadTooLarge({ limitBytes });
  try {
    return await getRawBody(request, { limit: limitBytes });
  } catch (error) {
    if ((error as { type?: string }).type === "entity.too.large") throw new PayloadTooLarge({ limitBytes });
    throw error;
  }
};

/** Bounds on any JSON body, whatever its schema: nesting depth and string length. */
export const JSON_LIMITS = { maxDepth: 32, maxStringLength: 100_000 } as const;

/** The path of the first value that breaks JSON_LIMITS, or undefined (iterative: no recursion on hostile input). */
const findLimitViolation = (root: unknown): { path: string; message: string } | undefined => {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: "body", depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === "string") {
      if (value.length > JSON_LIMITS.maxStringLength) return { path, message: `string longer than ${JSON_LIMITS.maxStringLength} characters` };
      // PostgreSQL text cannot hold NUL; refuse it here rather than fail in the database.
      if (value.includes("\u0000")) return { path, message: "must not contain NUL characters" };
    } else if (typeof value === "object" && value !== null) {
      if (depth >= JSON_LIMITS.maxDepth) return { path, message: `nested deeper than ${JSON_LIMITS.maxDepth} levels` };
      if (Array.isArray(value)) value.forEach((item, index) => stack.push({ value: item, path: `${path}.${index}`, depth: depth + 1 }));
      else for (const [key, item] of Object.entries(value)) {
        if (key.length > JSON_LIMITS.maxStringLength || key.includes("\u0000")) return { path, message: "invalid key" };
        stack.push({ value: item, path: `${path}.${key}`, depth: depth + 1 });
      }
    }
  }
  return undefined;
};

/** Parses JSON bytes; malformed JSON, or JSON beyond JSON_LIMITS, is a 400 naming where. */
export const parseJson = (raw: Buffer): unknown => {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString("utf8"));
  } catch (error) {
    throw new ValidationFailed({
      details: { body: `Malformed JSON: ${error instanceof Error ? error.message : "unparseable"}` },
    });
  }
  const violation = findLimitViolation(value);
  if (violation !== undefined) {
    throw new ValidationFailed({ details: { [violation.path.replace(/^body\.?/, "") || "body"]: violation.message } });
  }
  return value;
};

/** Requires `Content-Type: application/json` (any charset parameter). */
export const requireJson = (contentType: string | undefined): void => {
  const type = mediaType(contentType);
  if (type !== "application/json" && !(type?.startsWith("application/") && type.endsWith("+json"))) {
    throw new UnsupportedMediaType({ expected: "application/json" });
  }
};

/**
 * Parses an `application/x-www-form-urlencoded` body into single values, with
 * the names that were repeated (RFC 6749 3.2: parameters must not repeat).
 */
export const parseForm = (raw: Buffer): { readonly fields: Record<string, string>; readonly repeated: ReadonlyArray<string> } => {
  const fields: Record<string, string> = {};
  const repeated = new Set<string>();
  for (const [name, value] of new URLSearchParams(raw.toString("utf8"))) {
    if (Object.hasOwn(fields, name)) repeated.add(name);
    else fields[name] = value;
  }
  return { fields, repeated: [...repeated] };
};
