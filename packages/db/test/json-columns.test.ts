/**
 * json and jsonb values read back with the keys they hold, whatever the
 * process parsed before: V8's JSON.parse (nodejs/node#63785, docs/decisions/0210)
 * can read an escaped key as one it cached from an earlier text, and
 * PostgreSQL writes the keys `"`, `\` and control characters escaped.
 */
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase } from "../src/connection.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { url } = await useTestDatabase();
const db = createDatabase({ connectionString: url, max: 1 });
afterAll(() => db.destroy());

/** Parses a text with a `\` key, as any request body or earlier row may have: it primes V8's key cache. */
const parseABackslashKey = () => JSON.parse(String.raw`{"!":[],"\\":0}`) as unknown;

describe("json and jsonb columns", () => {
  it.each(["jsonb", "json"])(
    "read a %s key PostgreSQL escapes as the key stored, after a \\ key was parsed",
    async (type) => {
      // jsonb orders keys by length, then bytes: "!" comes before '"', which is written last, escaped.
    const stored = { "!": 1, '"': 2 };
      parseABackslashKey();
      const { rows } = await sql<{ value: unknown; list: unknown }>`
      select ${JSON.stringify(stored)}::${sql.raw(type)} as value,
             json_build_array(${JSON.stringify(stored)}::${sql.raw(type)}) as list`.execute(db);
      expect(rows[0]?.value).toEqual(stored);
      expect(rows[0]?.list).toEqual([stored]);
    },
  );
});
