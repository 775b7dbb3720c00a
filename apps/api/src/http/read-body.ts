/**
 * Reads a request body as raw bytes under a size limit. The raw bytes are
 * kept (snapshot idempotency hashes the exact bytes received), then parsed
 * according to the operation's declared content type.
 */
import type { IncomingMessage } from "node:http";
import { JsonText } from "@dc/domain";
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

/** Parses JSON bytes; malformed JSON, or JSON beyond the domain's JsonText limits, is a 400 naming where. */
export const parseJson = (raw: Buffer): unknown => {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString("utf8"));
  } catch (error) {
    throw new ValidationFailed({
      details: { body: `Malformed JSON: ${error instanceof Error ? error.message : "unparseable"}` },
    });
  }
  const violation = JsonText.findLimitViolation(value);
  if (violation !== undefined) throw new ValidationFailed({ details: { [JsonText.violationField(violation)]: violation.message } });
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
