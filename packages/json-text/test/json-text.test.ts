import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as JsonText from "../src/json-text.ts";

const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });

/** JSON values that sometimes break a limit: deep nesting, long strings and keys, NUL characters. */
const edgyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<unknown>(null, true, 0, 1.5, Number.POSITIVE_INFINITY),
    fc.constantFrom("", "ok", "a\u0000b", "x".repeat(100_001)),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom("a", "b", "k\u0000", "y".repeat(100_001), "__proto__"), tie("value"), { maxKeys: 3 }),
    fc.integer({ min: 25, max: 40 }).map((depth) => nested(depth)),
  ),
})).value;

describe("JsonText", () => {
  it("detect a violation exactly when the locating walk finds one", () => {
    fc.assert(
      fc.property(edgyJson, (value) => {
        expect(JsonText.breaksLimits(value)).toBe(JsonText.locateLimitViolation(value) !== undefined);
      }),
      { numRuns: 500 },
    );
  });

  it("accepts a body within the bounds", () => {
    expect(JsonText.findLimitViolation({ rows: [{ a: "x".repeat(100_000), b: nested(29) }] })).toBeUndefined();
  });

  it("names the first value nested too deep, the first string too long, or a NUL", () => {
    expect(JsonText.findLimitViolation(nested(40))).toEqual({
      path: `body${".a".repeat(32)}`,
      message: "nested deeper than 32 levels",
    });
    expect(JsonText.findLimitViolation({ note: "x".repeat(100_001) })).toEqual({ path: "body.note", message: "string longer than 100000 characters" });
    expect(JsonText.findLimitViolation({ rows: [{ name: "a\u0000b" }] })).toEqual({ path: "body.rows.0.name", message: "must not contain NUL characters" });
    expect(JsonText.findLimitViolation(JSON.parse('{"metadata":{"x":1e400}}'))).toEqual({ path: "body.metadata.x", message: "number out of range" });
    expect(JsonText.findLimitViolation(JSON.parse('{"metadata":{"__proto__":{"polluted":1}}}'))).toEqual({
      path: "body.metadata",
      message: 'the key "__proto__" is not allowed',
    });
    expect(JsonText.violationField({ path: "body.rows.0.name", message: "" })).toBe("rows.0.name");
    expect(JsonText.violationField({ path: "body", message: "" })).toBe("body");
  });

  it("tells text PostgreSQL can store from text it cannot", () => {
    expect(JsonText.isStorable("Zoë 🦄")).toBe(true);
    expect(JsonText.isStorable("a\u0000")).toBe(false);
    expect(JsonText.isStorable("\ud800")).toBe(false);
    expect(JsonText.isStorable("\udc00x")).toBe(false);
    expect(JsonText.firstUnstorable({ ok: "x", plan: { installments: [{ ref: "\ud83d" }] } })).toBe("plan.installments.0.ref");
  });
});

describe("JsonText.findDuplicateKey", () => {
  const find = (text: string) => JsonText.findDuplicateKey(text, JsonText.parse(text));

  it("names a key written twice in one object, however it is escaped or spaced", () => {
    expect(find('{"a":1,"a":2}')).toEqual({ path: "body.a", message: 'the key "a" appears more than once' });
    expect(find('{ "a" : 1 , "\\u0061" : 2 }')).toEqual({ path: "body.a", message: 'the key "a" appears more than once' });
    expect(find('{"rows":[{"k":1},{"k":1,"x":{"q\\"":1,"q\\"":2}}]}')?.path).toBe('body.rows.1.x.q"');
  });

  it("finds none where keys repeat only across objects, or as strings holding colons and quotes", () => {
    for (const text of ['{"a":{"a":1},"b":{"a":1}}', '[{"a":"x:y"},{"a":"\\":\\""}]', '{"a":["a","a:"],"b":"\\\\"}', "[]", "1", '""']) {
      expect(find(text), text).toBeUndefined();
    }
  });

  it("finds one exactly when some object of the text repeats a key", () => {
    // Generated as trees that keep every key written, so whether one repeats is known without a parser.
    type Tree = { readonly text: string; readonly repeats: boolean };
    const key = fc.constantFrom("a", "b", "a:", '"', "\\", "a\\", "\u00e9");
    const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.constantFrom("1", "null", '"a"', '":"', '"{"').map((text) => ({ text, repeats: false })),
        fc.array(tie("node"), { maxLength: 3 }).map((items) => ({
          text: `[${items.map((item) => item.text).join(",")}]`,
          repeats: items.some((item) => item.repeats),
        })),
        fc.array(fc.tuple(key, fc.boolean(), tie("node")), { maxLength: 3 }).map((pairs) => ({
          // A key is written plainly or with every character escaped, which JSON reads as the same key.
          text: `{${pairs
            .map(([name, escaped, value]) => `${escaped ? `"${[...name].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}"` : JSON.stringify(name)} : ${value.text}`)
            .join(",")}}`,
          repeats: new Set(pairs.map(([name]) => name)).size !== pairs.length || pairs.some(([, , value]) => value.repeats),
        })),
      ),
    })).node;
    fc.assert(fc.property(tree, ({ text, repeats }) => (find(text) !== undefined) === repeats));
  });
});

describe("JsonText.parse", () => {
  it("reads a key written with escapes as the key it stands for, whatever V8's JSON.parse cached before", () => {
    // nodejs/node#63785: after this text, JSON.parse reads the key of the next one as "\\".
    JSON.parse(String.raw`{"ref":"x","\\":"y"}`);
    expect(JsonText.parse(String.raw`{"ref":"x","\u00e9":"2"}`)).toEqual({ ref: "x", "\u00e9": "2" });
    expect(JsonText.parse(String.raw`[{"ref":1,"\n":[true,null,-1.5e3]},{"ref":"\"","\"":{}}]`)).toEqual([
      { ref: 1, "\n": [true, null, -1500] },
      { ref: '"', '"': {} },
    ]);
  });

  it("reads back any value JSON.stringify writes, and throws where JSON.parse throws", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        // Compared as text: JSON.parse itself, the other side, is what may misread an escaped key.
        expect(JSON.stringify(JsonText.parse(text))).toBe(text);
      }),
    );
    expect(JsonText.parse('{"b":1,"1":2,"b":3,"__proto__":4}')).toEqual(JSON.parse('{"b":1,"1":2,"b":3,"__proto__":4}'));
    expect(() => JsonText.parse('{"a\\u00e9":')).toThrow(SyntaxError);
  });
});

describe("JsonText.parseWithNumberSources", () => {
  type Visit = readonly [key: string, value: number, source: string];
  const visitsOf = (text: string): Array<Visit> => {
    const visits: Array<Visit> = [];
    JsonText.parseWithNumberSources(text, (holder, key, value, source) => {
      // The holder is the parsed object or array, holding the value under the key.
      expect(Object.is((holder as Record<string, unknown>)[key], value)).toBe(true);
      visits.push([key, value, source]);
    });
    return visits.sort((a, b) => (`${a[0]}\u0000${a[2]}` < `${b[0]}\u0000${b[2]}` ? -1 : 1));
  };

  it("tells the same numbers and texts whether or not a key of the text is written with an escape", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        // The escaped key sends the text down the key-by-key read; the plain one down JSON.parse's reviver.
        expect(visitsOf(`{"\\u0061":${text}}`)).toEqual(visitsOf(`{"a":${text}}`));
      }),
    );
    expect(visitsOf('{"\\u0061":[1.50,{"b":-0,"c":1e2}]}')).toEqual([
      ["0", 1.5, "1.50"],
      ["b", -0, "-0"],
      ["c", 100, "1e2"],
    ]);
  });
});
