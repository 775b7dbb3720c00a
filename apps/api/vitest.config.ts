import { defineConfig } from "vitest/config";
import { databaseTestSettings } from "../../packages/db/src/testing/vitest-preset.ts";

export default defineConfig({ test: databaseTestSettings });
