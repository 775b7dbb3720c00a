import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["./src/testing/global-setup.ts"],
    setupFiles: ["./src/testing/record-tenant-statements.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
