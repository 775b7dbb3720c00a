/**
 * Prints one closing line for the whole repository's test run, summed from
 * every package's vitest JSON report: `N passed, N failed, N skipped`.
 * Exits non-zero when a test failed or no test ran at all.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "@dc/db";
import { testedPackages } from "./tested-packages.ts";

interface VitestReport {
  readonly numPassedTests: number;
  readonly numFailedTests: number;
  readonly numPendingTests: number;
  readonly numTodoTests: number;
  readonly numFailedTestSuites: number;
}

const root = repositoryRoot();
const packages = testedPackages(root);
let passed = 0;
let failed = 0;
let skipped = 0;
let failedFiles = 0;
for (const folder of packages) {
  const file = join(root, folder, "test-results", "vitest.json");
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, "utf8")) as VitestReport;
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
  failedFiles += report.numFailedTestSuites;
  process.stdout.write(`${folder}: ${report.numPassedTests} passed, ${report.numFailedTests} failed\n`);
}
process.stdout.write(`${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exit(failed > 0 || failedFiles > 0 || passed === 0 ? 1 : 0);
