/**
 * The vitest settings of every package whose tests run SQL on the embedded
 * cluster (db, api, worker): one cluster per run (global-setup.ts), every
 * statement a test sends recorded for the tenant check
 * (record-tenant-statements.ts), timeouts that leave room for cloning a
 * database per file, and the files of a vitest worker run in one module
 * graph. The paths are absolute, so each package's vitest.config.ts uses
 * them as they are.
 */
import { fileURLToPath } from "node:url";

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

/** Spread into `defineConfig({ test: { ... } })`. */
export const databaseTestSettings = {
  globalSetup: [here("./global-setup.ts")],
  setupFiles: [here("./record-tenant-statements.ts")],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // The files of one vitest worker share its module graph (docs/decisions/0693): each file still has its own
  // database, servers and hooks, and the set-up file installs its recorder once per process.
  isolate: false,
};
