import { configDefaults, defineConfig } from "vitest/config";

// `dist/` is the publishable build (tsconfig.build.json); the tests run the sources.
// The property tests run thousands of generated cases each: 2 to 6 s when CI runs every package's tests at
// once on 2 cores, so the timeout (a guard against a hang, not a speed check) is the other packages' 30 s.
export default defineConfig({ test: { exclude: [...configDefaults.exclude, "dist/**"], testTimeout: 30_000 } });
