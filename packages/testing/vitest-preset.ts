/**
 * The vitest settings of every package whose tests run SQL on the embedded
 * cluster (db, api, worker): one cluster per run (global-setup.ts), every
 * statement a test sends recorded for the tenant check
 * (record-tenant-statements.ts), and timeouts that leave room for cloning a
 * database per file. The paths are absolute, so each package's
 * vitest.config.ts uses them as they are.
 */
import { fileURLToPath } from "node:url";

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

/** Spread into `defineConfig({ test: { ... } })`. */
export const databaseTestSettings = {
  globalSetup: [here("./global-setup.ts")],
  setupFiles: [here("./record-tenant-statements.ts")],
  testTimeout: 30_000,
  hookTimeout: 60_000,
};
