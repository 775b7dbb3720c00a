/** The workspace folders whose package runs tests (a `test` script), relative to the repository root. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** `packages/*` and `apps/*` folders with a `test` script, in a fixed order. */
export const testedPackages = (root: string): ReadonlyArray<string> =>
  ["packages", "apps"].flatMap((group) =>
    readdirSync(join(root, group))
      .sort()
      .map((name) => `${group}/${name}`)
      .filter((folder) => {
        const manifest = join(root, folder, "package.json");
        if (!existsSync(manifest)) return false;
        const scripts = (JSON.parse(readFileSync(manifest, "utf8")) as { scripts?: Record<string, string> }).scripts;
        return scripts?.["test"] !== undefined;
      }),
  );
