/**
 * The compiled reply encoder (docs/decisions/0014) gives exactly what Effect's
 * own encoding of the success schema gives, and the compiled serializer the
 * JSON text of that encoding, for every operation of the contract, on values
 * generated from each schema.
 */
import { endpoints } from "@dc/contract";
import { Arbitrary, FastCheck, Schema } from "effect";
import { describe, expect, it } from "vitest";
import { compileReplyEncoder, compileReplySerializer } from "../src/http/fast-paths/encode-reply.ts";

const operations = Object.entries(endpoints).map(([operationId, endpoint]) => ({
  operationId,
  schema: endpoint.success.schema as Schema.Schema<unknown, unknown>,
}));

/** Values of the schema's type side; the always-empty revocation answer (a record of `never`) has one value. */
const valuesOf = (operationId: string, schema: Schema.Schema<unknown, unknown>) =>
  operationId === "revokeToken" ? FastCheck.constant({}) : Arbitrary.make(schema);

/** The output, or the fact that encoding threw (an invalid Date cannot be formatted by either). */
const attempt = (encode: (value: unknown) => unknown, value: unknown) => {
  try {
    return { output: encode(value) };
  } catch {
    return { threw: true };
  }
};

describe("compiled reply encoder", () => {
  it.each(operations)("equals Effect's encoding for $operationId", ({ operationId, schema }) => {
    const fast = compileReplyEncoder(schema);
    const reference = Schema.encodeUnknownSync(schema);
    FastCheck.assert(
      FastCheck.property(valuesOf(operationId, schema), (value) => {
        expect(attempt(fast, value)).toStrictEqual(attempt(reference, value));
      }),
      { numRuns: 40 },
    );
  });

  it.each(operations)("writes the JSON text of Effect's encoding for $operationId", ({ operationId, schema }) => {
    const serialize = compileReplySerializer(schema);
    const reference = Schema.encodeUnknownSync(schema);
    FastCheck.assert(
      FastCheck.property(valuesOf(operationId, schema), (value) => {
        expect(attempt(serialize, value)).toStrictEqual(attempt((input) => JSON.stringify(reference(input)), value));
      }),
      { numRuns: 40 },
    );
  });

  it("writes JSON as JSON.stringify does: omitted undefined members, null array holes, escaped text, the declared order", () => {
    const schema = Schema.Struct({
      text: Schema.String,
      maybe: Schema.optional(Schema.String),
      list: Schema.Array(Schema.NullOr(Schema.Number)),
      flags: Schema.Array(Schema.Boolean),
      kind: Schema.Literal("debt", "creditor"),
      nested: Schema.Struct({ at: Schema.Date, free: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }),
    });
    const value = {
      list: [1, null, Number.NaN, -0, Number.POSITIVE_INFINITY, 1e21, 0.1],
      flags: [true, false],
      kind: "debt",
      text: 'quote " backslash \\ line\n \u2028 é',
      maybe: undefined,
      nested: { free: { b: 1, a: [true] }, at: new Date("2026-11-24T10:00:00.000Z"), extra: 1 },
    };
    const text = compileReplySerializer(schema)(value);
    expect(text).toBe(JSON.stringify(compileReplyEncoder(schema)(value)));
    expect(text).toBe(
      '{"text":"quote \\" backslash \\\\ line\\n \u2028 é","list":[1,null,null,0,null,1e+21,0.1],"flags":[true,false],"kind":"debt","nested":{"at":"2026-11-24T10:00:00.000Z","free":{"b":1,"a":[true]}}}',
    );
  });

  it("drops fields that the schema does not declare, at every depth", () => {
    const schema = Schema.Struct({
      error: Schema.Literal(false),
      data: Schema.Array(Schema.Struct({ id: Schema.String, at: Schema.NullOr(Schema.Date) })),
    });
    const at = new Date("2026-11-21T10:00:00.000Z");
    const value = { error: false, internal: 1, data: [{ id: "a", at, password_hash: "x" }, { id: "b", at: null }] };
    expect(compileReplyEncoder(schema)(value)).toStrictEqual({
      error: false,
      data: [
        { id: "a", at: "2026-11-21T10:00:00.000Z" },
        { id: "b", at: null },
      ],
    });
  });
});
