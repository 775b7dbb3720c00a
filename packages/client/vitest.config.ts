import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // One real PostgreSQL per run, a cloned database per test file; the api and worker run as child processes on it.
    globalSetup: ["../db/src/testing/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 90_000,
  },
});
