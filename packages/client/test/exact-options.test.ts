/**
 * Request options are checked exactly at compile time: a misspelled body
 * field, a misspelled field of a batch item, a misspelled parameter or a
 * misspelled option name does not compile, where openapi-fetch alone lets an
 * inferred object literal through and the API answers 400 at run time.
 * Each case is compiled on its own under the package's strict settings, and
 * its diagnostics are compared whole: the correct spelling compiles clean,
 * the misspelling fails on the misspelled line.
 */
import { join } from "node:path";
import { typeScriptDiagnostics } from "@dc/testing";
import { describe, expect, it } from "vitest";

const tsconfig = join(import.meta.dirname, "..", "tsconfig.json");

const cases = {
  "a body field": [
    'await api.POST("/external-api/v1/debts", { body: { firstname: "Jane", lastname: "Doe", amount: 120.5, currency: "EUR" } });',
    'await api.POST("/external-api/v1/debts", { body: { firstnme: "Jane", lastname: "Doe", amount: 120.5, currency: "EUR" } });',
  ],
  "a batch item's field": [
    'await api.POST("/external-api/v1/debts/batch", { body: { debts: [{ amount: 80, currency: "EUR", firstname: "Ana" }] } });',
    'await api.POST("/external-api/v1/debts/batch", { body: { debts: [{ amount: 80, currency: "EUR", frstname: "Ana" }] } });',
  ],
  "a snapshot row's field": [
    'await api.PUT("/external-api/v1/campaigns/{apiReference}/snapshots/{snapshotReference}", { params: { path: { apiReference: "acme", snapshotReference: "export-1" } }, body: { rows: [{ internal_id: "ACC-1", remaining_amount: 10, currency: "EUR" }] } });',
    'await api.PUT("/external-api/v1/campaigns/{apiReference}/snapshots/{snapshotReference}", { params: { path: { apiReference: "acme", snapshotReference: "export-1" } }, body: { rows: [{ internal_id: "ACC-1", remaining_amount: 10, currency: "EUR", emial: "a@example.com" }] } });',
  ],
  "a query parameter": [
    'await api.GET("/external-api/v1/debts", { params: { query: { limit: 10, search: "INV-1" } } });',
    'await api.GET("/external-api/v1/debts", { params: { query: { limit: 10, serach: "INV-1" } } });',
  ],
  "an option": [
    'await api.GET("/external-api/v1/debts", { params: { query: { limit: 10 } }, signal: AbortSignal.timeout(1000) });',
    'await api.GET("/external-api/v1/debts", { params: { query: { limit: 10 } }, signl: AbortSignal.timeout(1000) });',
  ],
} as const;

const source = (call: string) => `import type { DebtCollectionClient } from "../src/index.ts";
declare const api: DebtCollectionClient;
export const run = async () => {
${call}
};
`;
const fileOf = (index: number, variant: "right" | "misspelled") =>
  join(import.meta.dirname, `exact-options-${index}-${variant}.ts`);
// One program for every case (a program per case costs seconds each): diagnostics are then read per file.
const diagnostics = typeScriptDiagnostics(
  tsconfig,
  Object.fromEntries(
    Object.values(cases).flatMap(([right, misspelled], index) => [
      [fileOf(index, "right"), source(right)],
      [fileOf(index, "misspelled"), source(misspelled)],
    ]),
  ),
);
/** The diagnostics of one file, as `line N: message` (the call is on line 4). */
const diagnosticsOf = (file: string) =>
  diagnostics.filter((text) => text.startsWith(`${file} `)).map((text) => text.slice(file.length + 1));

describe("request options checked exactly", () => {
  Object.entries(cases).forEach(([what], index) => {
    it(`refuses ${what} misspelled, and accepts it spelled right`, () => {
      expect(diagnosticsOf(fileOf(index, "right"))).toEqual([]);
      const refused = diagnosticsOf(fileOf(index, "misspelled"));
      expect(refused.length, refused.join("\n")).toBeGreaterThan(0);
      expect(
        refused.every((text) => text.startsWith("line 4: ")),
        refused.join("\n"),
      ).toBe(true);
    });
  });

  it("reports nothing outside the cases", () => {
    const files = Object.values(cases).flatMap((_, index) => [fileOf(index, "right"), fileOf(index, "misspelled")]);
    expect(diagnostics.filter((text) => !files.some((file) => text.startsWith(`${file} `)))).toEqual([]);
  });
});
