/** The api's memory settings (docs/decisions/0015) are the same wherever the api is started as deployed. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { API_MALLOC_ARENA_MAX, API_NODE_OPTIONS } from "../src/runtime.ts";

const app = join(import.meta.dirname, "..");

describe("memory settings", () => {
  it("are the api image's NODE_OPTIONS and MALLOC_ARENA_MAX", () => {
    const dockerfile = readFileSync(join(app, "Dockerfile"), "utf8");
    expect(dockerfile).toContain(`ENV NODE_OPTIONS="${API_NODE_OPTIONS}"`);
    expect(dockerfile).toContain(`ENV MALLOC_ARENA_MAX=${API_MALLOC_ARENA_MAX}`);
  });

  it("are the flags of `pnpm start`", () => {
    const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(manifest.scripts["start"]).toBe(`MALLOC_ARENA_MAX=${API_MALLOC_ARENA_MAX} node ${API_NODE_OPTIONS} src/main.ts`);
  });
});
