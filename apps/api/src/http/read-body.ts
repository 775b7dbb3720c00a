/**
 * Reads a request body as raw bytes under a size limit. The raw bytes are
 * kept (snapshot idempotency hashes the exact bytes received), then parsed
 * according to the operation's declared content type.
 */
import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";
import * as JsonText from "@dc/json-text";
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
    const type = (error as { type?: string }).type;
    if (type === "entity.too.large") throw new PayloadTooLarge({ limitBytes });
    // The client's doing, not a fault of ours: it went away mid-body, sent fewer bytes than
    // announced, or broke the framing (Node has then already answered 400 and closed).
    if (type === "request.aborted" || type === "request.size.invalid" || type === "stream.not.readable") {
      throw new ValidationFailed({ details: { body: "the request body ended before it was complete" } });
    }
    throw error;
  }
};

/** A JSON escape of a UTF-16 surrogate (`\\uD800` to `\\uDFFF`) may appear in `raw`: the only way a lone one can. */
const mayHoldSurrogateEscape = (raw: Buffer): boolean => raw.indexOf("\\ud") >= 0 || raw.indexOf("\\uD") >= 0;

/**
 * Parses JSON bytes. A 400 naming where: bytes that are not UTF-8 (they would
 * be stored as U+FFFD, silently), malformed JSON, JSON beyond the domain's
 * JsonText limits, a key twice in one object (parsers disagree on its value:
 * JSON.parse keeps the last), and a string or key with an unpaired UTF-16 surrogate
 * (valid JSON, but not text: it would be stored as U+FFFD, so two different
 * identities could become one), unless the operation reports those per row
 * (`unstorableTextPerRow`).
 */
export const parseJson = (raw: Buffer, options: { readonly unstorableTextPerRow?: boolean } = {}): unknown => {
  if (!isUtf8(raw)) throw new ValidationFailed({ details: { body: "Malformed JSON: the body is not valid UTF-8" } });
  const text = raw.toString("utf8");
  let value: unknown;
  try {
    value = JsonText.parse(text);
  } catch (error) {
    throw new ValidationFailed({
      details: { body: `Malformed JSON: ${error instanceof Error ? error.message : "unparseable"}` },
    });
  }
  const violation = JsonText.findLimitViolation(value);
  if (violation !== undefined) throw new ValidationFailed({ details: { [JsonText.violationField(violation)]: violation.message } });
  const duplicate = JsonText.findDuplicateKey(text, value);
  if (duplicate !== undefined) throw new ValidationFailed({ details: { [JsonText.violationField(duplicate)]: duplicate.message } });
  if (options.unstorableTextPerRow !== true && mayHoldSurrogateEscape(raw)) {
    const path = JsonText.firstUnstorable(value);
    if (path !== undefined) {
      throw new ValidationFailed({ details: { [path === "" ? "body" : path]: "must not contain an unpaired UTF-16 surrogate" } });
    }
  }
  return value;
};

/**
 * The `charset` parameters of a Content-Type header, lower-cased and unquoted.
 * Names are matched as RFC 9110 5.6.6 allows a lenient reader to (in any
 * case, with spaces around `=`), and every one is kept: a header naming two
 * charsets, or one spaced as `charset = latin1`, does not read as UTF-8.
 */
const charsetsOf = (header: string | undefined): ReadonlyArray<string> =>
  (header ?? "")
    .split(";")
    .slice(1)
    .map((part) => part.split("="))
    .filter(([name]) => name?.trim().toLowerCase() === "charset")
    .map(([, ...value]) => value.join("=").trim().replace(/^"|"$/g, "").toLowerCase());

/**
 * Requires `Content-Type: application/json` (or `application/*+json`), in
 * UTF-8 (RFC 8259 8.1): a `charset` other than `utf-8` is a 415 rather than
 * text read with the wrong encoding.
 */
export const requireJson = (contentType: string | undefined): void => {
  const type = mediaType(contentType);
  const charsets = charsetsOf(contentType);
  if (
    (type !== "application/json" && !(type?.startsWith("application/") && type.endsWith("+json"))) ||
    charsets.length > 1 ||
    charsets.some((charset) => charset !== "utf-8" && charset !== "utf8")
  ) {
    throw new UnsupportedMediaType({ expected: "application/json" });
  }
};

/** True when the request announces a content coding (gzip...) the api does not decode: only `identity` is read. */
export const hasContentCoding = (request: IncomingMessage): boolean => {
  const coding = request.headers["content-encoding"]?.trim().toLowerCase();
  return coding !== undefined && coding !== "" && coding !== "identity";
};

/**
 * Parses an `application/x-www-form-urlencoded` body (or query) of the OAuth
 * endpoints into single values, with the names that were repeated. RFC 6749
 * 3.1 and 3.2: parameters must not repeat, and a parameter sent without a
 * value is treated as if it were omitted, so it is left out here.
 */
export const parseForm = (raw: Buffer): { readonly fields: Record<string, string>; readonly repeated: ReadonlyArray<string> } => {
  const fields: Record<string, string> = {};
  const repeated = new Set<string>();
  for (const [name, value] of new URLSearchParams(raw.toString("utf8"))) {
    if (value === "") continue;
    if (Object.hasOwn(fields, name)) repeated.add(name);
    else fields[name] = value;
  }
  return { fields, repeated: [...repeated] };
};
