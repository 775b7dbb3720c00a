import { Either, type ParseResult, Schema } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as ParseIssues from "../src/ParseIssues.ts";

const Body = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" })),
  amount: Schema.Number,
  active: Schema.optional(Schema.Boolean),
  call_date: Schema.optional(Schema.NullOr(Schema.String)),
  metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  tags: Schema.optional(Schema.Array(Schema.String)),
  kind: Schema.optional(Schema.Literal("call", "email").annotations({ message: () => "must be one of: call, email" })),
  kinds: Schema.optional(
    Schema.Array(Schema.Literal("call", "email").annotations({ message: () => "must be one of: call, email" })),
  ),
  count: Schema.optional(Schema.Int),
}).annotations({ identifier: "Body" });

const issuesOf = (input: unknown): ReadonlyArray<readonly [string, string]> => {
  const result = Schema.decodeUnknownEither(Body, { errors: "all", onExcessProperty: "error" })(input);
  if (Either.isRight(result)) return [];
  return ParseIssues.plainIssues(result.left as ParseResult.ParseError).map(
    (issue) => [issue.path.map(String).join("."), issue.message] as const,
  );
};

describe("ParseIssues.plainIssues", () => {
  it("says what a field of the wrong type must be, without the value sent", () => {
    const secret = { hidden: "SENTINEL" };
    expect(
      issuesOf({ name: secret, amount: "10", active: "yes", metadata: [secret], tags: secret, count: 1.5 }),
    ).toEqual([
      ["name", "must be a string"],
      ["amount", "must be a number"],
      ["active", "must be a boolean"],
      ["metadata", "must be a JSON object"],
      ["tags", "must be an array"],
      ["count", "must be an integer"],
    ]);
  });

  it("names a whole body of the wrong type a JSON object, whatever its schema is called", () => {
    expect(issuesOf([{ name: "x" }])).toEqual([["", "must be a JSON object"]]);
    expect(issuesOf("SENTINEL")).toEqual([["", "must be a JSON object"]]);
  });

  it("joins the alternatives of a union and leaves out the absence of an optional field", () => {
    expect(issuesOf({ name: "n", amount: 1, call_date: 5 })).toEqual([["call_date", "must be a string or null"]]);
  });

  it("keeps the schema's own messages, and says nothing more where they speak", () => {
    expect(issuesOf({ name: "", amount: 1, kind: 5, kinds: ["sms"] })).toEqual([
      ["name", "must not be empty"],
      ["kind", 'must be "call" or "email"'],
      ["kinds.0", 'must be "call" or "email"'],
    ]);
    expect(issuesOf({ name: "n", amount: 1, tags: ["a", 5] })).toEqual([["tags.1", "must be a string"]]);
  });

  it("keeps missing and unknown fields as the formatter says them", () => {
    const issues = issuesOf({ amount: 1, extra: true });
    expect(issues).toContainEqual(["name", "is missing"]);
    expect(issues.find(([path]) => path === "extra")?.[1]).toMatch(/^is unexpected/);
  });

  it("reads an array of 100,000 wrong items in one pass (a quadratic pass would hold the api for minutes)", () => {
    const issues = issuesOf({ name: "n", amount: 1, tags: Array.from({ length: 100_000 }, (_, index) => index) });
    expect(issues).toHaveLength(100_000);
    expect(issues[99_999]).toEqual(["tags.99999", "must be a string"]);
  });

  it("never sends back any part of a value of the wrong type", () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.constantFrom("name", "amount", "active", "call_date", "metadata", "tags", "kind", "count"),
        (value, field) => {
          for (const [, message] of issuesOf({ name: "n", amount: 1, [field]: ["SENTINEL", value] })) {
            expect(message).not.toContain("SENTINEL");
            expect(message).not.toContain(", actual");
          }
        },
      ),
    );
  });
});
