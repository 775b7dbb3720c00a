/** Decodes request parts with the endpoint's schemas into a 400 naming every field. */
import { ParseIssues } from "@dc/domain";
import { Either, type ParseResult, Schema } from "effect";
import { ValidationFailed } from "./api-error.ts";

/**
 * The `details` of a refusal from (field, message) pairs, the first message of
 * a field kept. Built as own properties: written into `{}`, a field named
 * like an inherited property (`constructor`, `toString`) would look already
 * set and be dropped, and `__proto__` would set the prototype, so the 400
 * would name nothing.
 */
const detailsOf = (entries: Iterable<readonly [field: string, message: string]>): Record<string, string> => {
  const details = new Map<string, string>();
  for (const [field, message] of entries) if (!details.has(field)) details.set(field, message);
  return Object.fromEntries(details);
};

/** Field path -> message for every issue of a parse error; `prefix` names the request part. */
export const issueDetails = (error: ParseResult.ParseError, prefix?: string): Record<string, string> =>
  detailsOf(
    ParseIssues.plainIssues(error).map((issue) => {
      const path = issue.path.map(String).join(".");
      const message = issue._tag === "Unexpected" ? `unknown field "${String(issue.path.at(-1))}"` : issue.message;
      return [path === "" ? (prefix ?? "body") : path, message] as const;
    }),
  );

/**
 * Bodies larger than this name only their first problem when refused. Naming
 * every one is linear in the problems, but a 1 MiB body can hold 500,000 of
 * them (an array of wrong items): about 7 s of the api's one thread on this
 * project's machines, and a 400 of 175 MB for 400,000 of them. Valid bodies
 * decode the same way either way; the bodies of the contract's forms are a
 * few kilobytes, and a batch's entries are decoded one by one, each naming
 * all its problems.
 */
const ALL_ISSUES_MAX_BYTES = 64 * 1024;

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
  /** The body's size in bytes: above `ALL_ISSUES_MAX_BYTES` a refusal names its first problem only. */
  bytes = 0,
): A => {
  if (part === "query") rejectNulCharacters(input as Readonly<Record<string, unknown>>);
  const onExcessProperty = part === "query" ? "ignore" : "error";
  const errors = bytes > ALL_ISSUES_MAX_BYTES ? "first" : "all";
  const result = Schema.decodeUnknownEither(schema, { errors, onExcessProperty })(input);
  if (Either.isRight(result)) return result.right;
  throw new ValidationFailed({ details: issueDetails(result.left, part) });
};

/** Query values may not carry NUL characters (PostgreSQL text cannot hold them). */
const rejectNulCharacters = (values: Readonly<Record<string, unknown>>): void => {
  const refused = Object.entries(values ?? {})
    .filter(([, value]) => (Array.isArray(value) ? value : [value]).some((text) => typeof text === "string" && text.includes("\u0000")))
    .map(([name]) => [name, "must not contain NUL characters"] as const);
  if (refused.length > 0) throw new ValidationFailed({ details: detailsOf(refused) });
};
