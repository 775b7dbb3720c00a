import { defineConfig } from "vitest/config";
import { databaseTestSettings } from "../../packages/testing/vitest-preset.ts";

export default defineConfig({ test: databaseTestSettings });
