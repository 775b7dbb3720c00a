/** Decodes request parts with the endpoint's schemas into a 400 naming every field. */
import { Either, ParseResult, Schema } from "effect";
import { ValidationFailed } from "./api-error.ts";

const formatter = ParseResult.ArrayFormatter;

/** Field path -> message for every issue of a parse error; `prefix` names the request part. */
export const issueDetails = (error: ParseResult.ParseError, prefix?: string): Record<string, string> => {
  const details: Record<string, string> = {};
  for (const issue of formatter.formatErrorSync(error)) {
    const path = issue.path.map(String).join(".");
    const key = path === "" ? (prefix ?? "body") : path;
    details[key] ??= issue._tag === "Unexpected" ? `unknown field "${String(issue.path.at(-1))}"` : issue.message;
  }
  return details;
};

/**
 * Decodes `input` or throws ValidationFailed. Unknown body keys are rejected
 * (a typo must not be silently dropped); unknown query parameters are ignored
 * (proxies and caches add their own). A query value with a NUL character is
 * refused here; a path parameter is left to its own schema and handler: an
 * encrypted id with a NUL is an unknown id (404, contract 4.5 and 7.1), and
 * the path parameters that are stored as text refuse NUL in their schemas.
 */
export const decodeOrFail = <A, I>(
  schema: Schema.Schema<A, I>,
  input: unknown,
  part: "body" | "query" | "path",
): A => {
  if (part === "query") rejectNulCharacters(input as Readonly<Record<string, unknown>>);
  const onExcessProperty = part === "query" ? "ignore" : "error";
  const result = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty })(input);
  if (Either.isRight(result)) return result.right;
  throw new ValidationFailed({ details: issueDetails(result.left, part) });
};

/** Query values may not carry NUL characters (PostgreSQL text cannot hold them). */
const rejectNulCharacters = (values: Readonly<Record<string, unknown>>): void => {
  const details: Record<string, string> = {};
  for (const [name, value] of Object.entries(values ?? {})) {
    const texts = Array.isArray(value) ? value : [value];
    if (texts.some((text) => typeof text === "string" && text.includes("\u0000"))) details[name] = "must not contain NUL characters";
  }
  if (Object.keys(details).length > 0) throw new ValidationFailed({ details });
};
