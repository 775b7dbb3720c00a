/**
 * A tiny vitest project that test/exit-code.test.ts runs as a child process,
 * on the same global set-up as every package whose tests touch SQL. Its
 * files end in `.fixture.ts`, so the package's own run never picks them up.
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["../../global-setup.ts"],
    include: ["*.fixture.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
