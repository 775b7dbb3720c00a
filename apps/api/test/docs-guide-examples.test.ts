/**
 * The getting-started guide's TypeScript examples compile against the
 * client package as it is, with this repository's strict compiler settings
 * (which an integrator's project may share): the guide is the first code an
 * integrator copies, so a renamed option or a changed result type must fail
 * here rather than in their build. The examples are read from the page as
 * served, in order, as one module: later ones use what earlier ones declare.
 */
import { join, relative } from "node:path";
import { repositoryRoot } from "@dc/db";
import { typeScriptDiagnostics } from "@dc/testing";
import { describe, expect, it } from "vitest";
import { guidePage } from "../src/docs/guide-page.ts";
import { guideBlocks } from "./support/guide-blocks.ts";

const root = repositoryRoot(import.meta.dirname);
const examplesFile = join(import.meta.dirname, "guide-examples.generated.ts");
/** The client's entries as the examples' module imports them: a relative path, as examples/integration.ts does. */
const clientEntry = relative(import.meta.dirname, join(root, "packages", "client", "src", "index.ts"));
const snapshotsEntry = relative(import.meta.dirname, join(root, "packages", "client", "src", "snapshots", "index.ts"));

describe("the guide's TypeScript examples", () => {
  const examples = guideBlocks(guidePage("http://localhost:3000"), /^TypeScript \(@dc\/client\)$/);

  it("are found on the page", () => {
    expect(examples.length).toBe(3);
    expect(examples.every((example) => example.includes("@dc/client") || example.includes("api."))).toBe(true);
  });

  it("compile against @dc/client under the repository's strict settings", () => {
    const source = [
      // What the guide leaves to the reader: the rows of their ledger.
      `import type { SnapshotRow } from "@dc/client/snapshots";`,
      "declare const rows: SnapshotRow[];",
      ...examples,
      "export {};",
    ]
      .join("\n")
      .replaceAll('from "@dc/client"', `from ${JSON.stringify(clientEntry)}`)
      .replaceAll('from "@dc/client/snapshots"', `from ${JSON.stringify(snapshotsEntry)}`);
    expect(typeScriptDiagnostics(join(root, "apps", "api", "tsconfig.json"), { [examplesFile]: source })).toEqual([]);
    // One program over the client, the domain and effect's declarations: about 35 s on a shared 2-core machine.
  }, 120_000);
});
