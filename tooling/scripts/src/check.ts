/**
 * `pnpm run check`: everything CI verifies, in order, with the test summary
 * line printed last whatever happened. Exits non-zero on the first failing
 * step's failure (the remaining steps still run, to report everything at once).
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { delimiter, join } from "node:path";
import { repositoryRoot } from "@dc/db";
import { testedPackages } from "./tested-packages.ts";

const root = repositoryRoot();
const bin = (name: string) => join(root, "node_modules", ".bin", name);
// turbo runs each task through pnpm and needs it (and Node 24) on PATH, whoever started this script.
const env = { ...process.env, PATH: `${join(root, "node_modules", ".bin")}${delimiter}${process.env["PATH"] ?? ""}` };

const steps: ReadonlyArray<{ readonly name: string; readonly command: string; readonly args: ReadonlyArray<string> }> = [
  { name: "lint, typecheck and test (turbo)", command: bin("turbo"), args: ["run", "lint", "typecheck", "test", "--continue", "--output-logs=errors-only", "--log-order=grouped"] },
  { name: "circular imports", command: bin("madge"), args: ["--circular", "--extensions", "ts", "--ts-config", "tsconfig.json", "packages", "apps", "tooling"] },
  { name: "generated files are current", command: process.execPath, args: [join(root, "tooling/scripts/src/codegen-check.ts")] },
];

for (const folder of testedPackages(root)) {
  rmSync(join(root, folder, "test-results"), { recursive: true, force: true });
}

const failures: string[] = [];
for (const step of steps) {
  process.stdout.write(`\n== ${step.name}\n`);
  const result = spawnSync(step.command, step.args, { cwd: root, stdio: "inherit", env });
  if (result.status !== 0) failures.push(step.name);
}
process.stdout.write("\n== test summary\n");
const summary = spawnSync(process.execPath, [join(root, "tooling/scripts/src/test-summary.ts")], { cwd: root, stdio: "inherit" });
if (summary.status !== 0 && !failures.includes("lint, typecheck and test (turbo)")) failures.push("test summary");
if (failures.length > 0) process.stdout.write(`\nfailed: ${failures.join("; ")}\n`);
process.exit(failures.length > 0 ? 1 : 0);
