/**
 * The environment variables the README's Configuration table documents, for
 * tests that hold each process's declared variables to it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@dc/db";

/**
 * Each variable of the README's Configuration table (a row may name several,
 * as `PORT` / `HOST` does), with its "used by" cells joined when it has more
 * than one row (`NODE_OPTIONS` has one per process).
 */
export const documentedVariables = (): ReadonlyMap<string, string> => {
  const readme = readFileSync(join(repositoryRoot(), "README.md"), "utf8");
  const start = readme.indexOf("\n## Configuration");
  const table = readme.slice(start, readme.indexOf("\n## ", start + 1));
  const variables = new Map<string, string>();
  for (const [, names = "", usedBy = ""] of table.matchAll(/^\| ([^|]+) \| ([^|]+) \|/gm)) {
    for (const [, name = ""] of names.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) {
      variables.set(name, [variables.get(name), usedBy.trim()].filter(Boolean).join("; "));
    }
  }
  return variables;
};

/**
 * How the Configuration table and an app's declared variables disagree:
 * `undocumented`, the variables `app` reads that no row gives to it;
 * `notRead`, the variables a row gives to `app` that it does not read,
 * but those its runtime reads (`readByTheRuntime`: Node's, the C library's).
 */
export const configurationTableGaps = (
  app: "api" | "worker",
  declared: ReadonlyArray<string>,
  readByTheRuntime: ReadonlyArray<string>,
): { readonly undocumented: ReadonlyArray<string>; readonly notRead: ReadonlyArray<string> } => {
  const documented = documentedVariables();
  const usedBy = (cell: string | undefined) => new RegExp(`\\b${app}\\b`).test(cell ?? "");
  return {
    undocumented: declared.filter((name) => !usedBy(documented.get(name))),
    notRead: [...documented]
      .filter(([name, cell]) => usedBy(cell) && !declared.includes(name) && !readByTheRuntime.includes(name))
      .map(([name]) => name),
  };
};
