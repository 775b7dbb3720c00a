import { defineConfig } from "vitest/config";
import { databaseTestSettings } from "./vitest-preset.ts";

export default defineConfig({ test: databaseTestSettings });
