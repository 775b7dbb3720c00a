import { defineConfig } from "vitest/config";
import { databaseTestSettings } from "../../packages/testing/vitest-preset.ts";

// Two workers whatever the core count: the api's suite is CI's long pole (docs/decisions/0693).
export default defineConfig({ test: { ...databaseTestSettings, maxWorkers: 2 } });
