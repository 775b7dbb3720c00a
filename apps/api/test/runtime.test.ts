/** The api's heap settings (docs/decisions/0015) are the same wherever the api is started as deployed. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { API_NODE_OPTIONS } from "../src/runtime.ts";

const app = join(import.meta.dirname, "..");

describe("heap settings", () => {
  it("are the api image's NODE_OPTIONS", () => {
    expect(readFileSync(join(app, "Dockerfile"), "utf8")).toContain(`ENV NODE_OPTIONS="${API_NODE_OPTIONS}"`);
  });

  it("are the flags of `pnpm start`", () => {
    const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(manifest.scripts["start"]).toBe(`node ${API_NODE_OPTIONS} src/main.ts`);
  });
});
