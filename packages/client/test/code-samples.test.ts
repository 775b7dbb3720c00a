/**
 * The API reference's `@dc/client` code samples (`x-codeSamples` in the
 * OpenAPI document, built from each operation's example) compile against
 * the client as it is, under the package's strict settings: a sample is
 * code an integrator pastes, so a path, parameter or body field the client
 * would refuse fails here. All samples are compiled in one program.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { typeScriptDiagnostics } from "@dc/testing";
import { describe, expect, it } from "vitest";

interface Operation {
  readonly operationId: string;
  readonly "x-codeSamples"?: ReadonlyArray<{ readonly lang: string; readonly label: string; readonly source: string }>;
}

const document = JSON.parse(readFileSync(new URL("../../contract/openapi.json", import.meta.url), "utf8")) as {
  paths: Record<string, Record<string, Operation>>;
};
const samples = Object.values(document.paths)
  .flatMap((methods) => Object.values(methods))
  .flatMap((operation) =>
    (operation["x-codeSamples"] ?? [])
      .filter((sample) => sample.label === "@dc/client")
      .map((sample) => ({ operationId: operation.operationId, source: sample.source })),
  );

describe("the reference's @dc/client code samples", () => {
  it("cover every JSON operation", () => {
    expect(samples.length).toBe(59);
  });

  it("compile against the client under the package's strict settings", () => {
    const files = Object.fromEntries(
      samples.map(({ operationId, source }) => [
        join(import.meta.dirname, `code-sample-${operationId}.ts`),
        `${source.replaceAll('from "@dc/client"', 'from "../src/index.ts"')}\nexport {};\n`,
      ]),
    );
    expect(typeScriptDiagnostics(join(import.meta.dirname, "..", "tsconfig.json"), files)).toEqual([]);
  });
});
