/**
 * The client gives an `Idempotency-Key` to exactly the operations whose
 * OpenAPI declaration takes one (docs/decisions/0024): a path missing here
 * would make its retries unsafe to allow, one too many would send a header
 * the api ignores while the client retries a POST it must not.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { KEYED_CREATION_PATHS } from "../src/idempotency-key.ts";

describe("KEYED_CREATION_PATHS", () => {
  it("are exactly the POST paths whose operation declares the Idempotency-Key header", () => {
    // The document the client's types are generated from.
    const document = JSON.parse(readFileSync(new URL("../../contract/openapi.json", import.meta.url), "utf8")) as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
    };
    const declared = Object.entries(document.paths)
      .filter(([, item]) =>
        item["post"]?.parameters?.some(
          (parameter) => parameter.in === "header" && parameter.name === "Idempotency-Key",
        ),
      )
      .map(([path]) => path)
      .sort();
    expect(declared.length).toBeGreaterThan(0);
    expect([...KEYED_CREATION_PATHS].sort()).toEqual(declared);
  });
});
