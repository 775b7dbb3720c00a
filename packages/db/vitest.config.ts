import { defineConfig } from "vitest/config";
import { databaseTestSettings } from "../testing/vitest-preset.ts";

export default defineConfig({ test: databaseTestSettings });
