/**
 * Array literals read back by PostgreSQL exactly as built: every string,
 * however it is written, and every safe integer, with nulls in place.
 */
import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase } from "../src/connection.ts";
import { integerArray, textArray } from "../src/queries/array-literals.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { url } = await useTestDatabase();
const db = createDatabase({ connectionString: url, max: 1 });
afterAll(() => db.destroy());

const readText = async (values: ReadonlyArray<string | null>) =>
  (
    await sql<{ value: string | null }>`
      select value from unnest(${textArray(values)}::text[]) with ordinality as v(value, n) order by n`.execute(db)
  ).rows.map((row) => row.value);

const readIntegers = async (values: ReadonlyArray<number | null>) =>
  (
    await sql<{ value: number | null }>`
      select value from unnest(${integerArray(values)}::int8[]) with ordinality as v(value, n) order by n`.execute(db)
  ).rows.map((row) => row.value);

/** Text PostgreSQL can store: no NUL, no lone surrogate. */
const storableText = fc.string({ unit: "grapheme", maxLength: 30 }).filter((value) => !value.includes("\u0000"));

describe("array literals", () => {
  it("carry the strings that break naive literals", async () => {
    const tricky = ['"', "\\", '\\"', "a,b", "{x}", "NULL", "null", "", " padded ", "line\nbreak\ttab", "é🎉", "'quote'"];
    expect(await readText([...tricky, null])).toEqual([...tricky, null]);
  });

  it("carry any storable string and null, in order", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(storableText, { nil: null }), { maxLength: 40 }), async (values) => {
        expect(await readText(values)).toEqual(values);
      }),
      { numRuns: 60 },
    );
  });

  it("carry safe integers and null, and refuse anything else", async () => {
    const values = [0, -1, 42, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, null];
    expect(await readIntegers(values)).toEqual(values);
    expect(await readIntegers([])).toEqual([]);
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => integerArray([bad])).toThrow(RangeError);
    }
  });
});
