import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // One real PostgreSQL per run, a cloned database per test file; the api and worker run as child processes on it.
    globalSetup: ["../testing/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    // `dist/` is the publishable build; the tests run the sources.
    exclude: [...configDefaults.exclude, "dist/**"],
  },
});
