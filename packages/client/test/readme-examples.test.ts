/**
 * The README's TypeScript examples compile against the client as it is,
 * under the package's strict settings: an integrator copies them first, so a
 * renamed option or a changed result type must fail here. Each example is a
 * module of its own; what the README leaves to the reader (its `api`, its
 * ledger, its logger) is declared once, globally, and an example that
 * declares a name itself shadows the global one.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { typeScriptDiagnostics } from "@dc/testing";
import { describe, expect, it } from "vitest";

const packageDirectory = join(import.meta.dirname, "..");
const readme = readFileSync(join(packageDirectory, "README.md"), "utf8");
const examples = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? "");

/** What the examples use without declaring it: the reader's own values. */
const readersValues = `
declare const api: import("../src/index.ts").DebtCollectionClient;
declare const credentials: { readonly baseUrl: string; readonly clientId: string; readonly clientSecret: string };
declare const debtId: string;
declare const exportId: string;
declare const ledger: ReadonlyArray<{ number: string; balance: number; firstname: string; lastname: string }>;
declare const log: { warn: (event: unknown, message: string) => void };
declare const myFetch: (request: Request) => Promise<Response>;
`;

describe("the client README's TypeScript examples", () => {
  it("are found", () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
  });

  it("compile against the client under the package's strict settings", () => {
    const files: Record<string, string> = { [join(import.meta.dirname, "readme-readers-values.d.ts")]: readersValues };
    examples.forEach((example, index) => {
      files[join(import.meta.dirname, `readme-example-${index + 1}.ts`)] =
        `${example
          .replaceAll('from "@dc/client"', 'from "../src/index.ts"')
          .replaceAll('from "@dc/client/snapshots"', 'from "../src/snapshots/index.ts"')}\nexport {};\n`;
    });
    expect(typeScriptDiagnostics(join(packageDirectory, "tsconfig.json"), files)).toEqual([]);
  });
});
