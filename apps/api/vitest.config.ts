import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["../../packages/db/src/testing/global-setup.ts"],
    setupFiles: ["../../packages/db/src/testing/record-tenant-statements.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
