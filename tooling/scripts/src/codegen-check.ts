/**
 * Regenerates every generated file and fails when any differs from the
 * committed version (the OpenAPI document, the client's types).
 */
import { spawnSync } from "node:child_process";
import { delimiter, join } from "node:path";
import { repositoryRoot } from "@dc/db";

const root = repositoryRoot();
const generated = ["packages/contract/openapi.json", "packages/client/src/generated"];
// turbo runs each task through pnpm and needs it (and Node 24) on PATH, whoever started this script.
const env = { ...process.env, PATH: `${join(root, "node_modules", ".bin")}${delimiter}${process.env["PATH"] ?? ""}` };
const run = (command: string, args: ReadonlyArray<string>) => spawnSync(command, args, { cwd: root, stdio: "inherit", env }).status;

if (run(`${root}/node_modules/.bin/turbo`, ["run", "codegen", "--output-logs=errors-only"]) !== 0) process.exit(1);
const diff = run("git", ["diff", "--exit-code", "--stat", "--", ...generated]);
const untracked = spawnSync("git", ["ls-files", "--others", "--exclude-standard", "--", ...generated], { cwd: root, encoding: "utf8" }).stdout.trim();
if (diff !== 0 || untracked !== "") {
  process.stderr.write(`generated files differ from the committed ones${untracked ? ` (untracked: ${untracked})` : ""}: run \`pnpm codegen\` and commit\n`);
  process.exit(1);
}
process.stdout.write("generated files are current\n");
