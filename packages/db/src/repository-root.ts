/** Locates the monorepo root (the folder holding `pnpm-workspace.yaml`). */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

export const repositoryRoot = (from: string = import.meta.dirname): string => {
  let dir = from;
  while (!existsSync(join(dir, "pnpm-workspace.yaml"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no pnpm-workspace.yaml above ${from}`);
    dir = parent;
  }
  return dir;
};
