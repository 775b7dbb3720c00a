import { configDefaults, defineConfig } from "vitest/config";

// `dist/` is the publishable build (tsconfig.build.json); the tests run the sources.
export default defineConfig({ test: { exclude: [...configDefaults.exclude, "dist/**"] } });
