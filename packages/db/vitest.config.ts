import { defineConfig } from "vitest/config";
import { databaseTestSettings } from "./src/testing/vitest-preset.ts";

export default defineConfig({ test: databaseTestSettings });
