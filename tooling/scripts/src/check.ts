/**
 * `pnpm run check`: everything CI verifies, with the test summary line
 * printed last whatever happened. Exits non-zero when any step failed (every
 * step still runs, to report everything at once).
 *
 * The tests and the static checks (lint, typecheck) run side by side, the
 * static checks at a lower CPU priority (`nice`): the test suites are the
 * run's long pole, and the static checks then use the CPU the tests leave
 * idle (while a suite waits on its database, its servers or a timer)
 * instead of slowing the suites' start. Their output is printed once they
 * are done, after the tests' own.
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { delimiter, join } from "node:path";
import { repositoryRoot } from "@dc/db";
import { testedPackages } from "./tested-packages.ts";

const root = repositoryRoot();
const bin = (name: string) => join(root, "node_modules", ".bin", name);
// turbo runs each task through pnpm and needs it (and Node 24) on PATH, whoever started this script.
const env = { ...process.env, PATH: `${join(root, "node_modules", ".bin")}${delimiter}${process.env["PATH"] ?? ""}` };
const turboRun = (...tasks: ReadonlyArray<string>) => [
  "run",
  ...tasks,
  "--continue",
  "--output-logs=errors-only",
  "--log-order=grouped",
];

interface Step {
  readonly name: string;
  readonly command: string;
  readonly args: ReadonlyArray<string>;
}

/** Runs `step`; its output goes to this process's own, or is kept and returned when `quiet`. */
const run = (step: Step, quiet = false): Promise<{ readonly ok: boolean; readonly output: string }> =>
  new Promise((resolve) => {
    const child = spawn(step.command, step.args, { cwd: root, env, stdio: quiet ? "pipe" : "inherit" });
    const output: Array<Buffer> = [];
    child.stdout?.on("data", (data: Buffer) => output.push(data));
    child.stderr?.on("data", (data: Buffer) => output.push(data));
    child.on("error", (error) => resolve({ ok: false, output: `${step.name}: ${error.message}\n` }));
    child.on("close", (code) => resolve({ ok: code === 0, output: Buffer.concat(output).toString("utf8") }));
  });

for (const folder of testedPackages(root)) {
  rmSync(join(root, folder, "test-results"), { recursive: true, force: true });
}

const failures: Array<string> = [];
const tests: Step = { name: "test (turbo)", command: bin("turbo"), args: turboRun("test") };
const staticChecks: Step = {
  name: "lint and typecheck (turbo, at a lower priority)",
  command: "nice",
  args: ["-n", "10", bin("turbo"), ...turboRun("lint", "typecheck")],
};
process.stdout.write(`\n== ${tests.name}, with ${staticChecks.name} alongside\n`);
const checking = run(staticChecks, true);
if (!(await run(tests)).ok) failures.push(tests.name);
const checked = await checking;
process.stdout.write(`\n== ${staticChecks.name}\n${checked.output}`);
if (!checked.ok) failures.push(staticChecks.name);

const afterwards: ReadonlyArray<Step> = [
  {
    name: "circular imports",
    command: bin("madge"),
    args: ["--circular", "--extensions", "ts", "--ts-config", "tsconfig.json", "packages", "apps", "tooling"],
  },
  {
    name: "generated files are current",
    command: process.execPath,
    args: [join(root, "tooling/scripts/src/codegen-check.ts")],
  },
];
for (const step of afterwards) {
  process.stdout.write(`\n== ${step.name}\n`);
  if (!(await run(step)).ok) failures.push(step.name);
}
process.stdout.write("\n== test summary\n");
const summary = await run({
  name: "test summary",
  command: process.execPath,
  args: [join(root, "tooling/scripts/src/test-summary.ts")],
});
if (!summary.ok && !failures.includes(tests.name)) failures.push("test summary");
if (failures.length > 0) process.stdout.write(`\nfailed: ${failures.join("; ")}\n`);
process.exit(failures.length > 0 ? 1 : 0);
