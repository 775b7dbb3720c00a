import { Either } from "effect";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";

describe("loadConfig", () => {
  it("applies the development defaults to an empty environment", () => {
    expect(loadConfig({})).toEqual(
      Either.right({ nodeEnv: "development", databaseUrl: undefined, embeddedPostgresPort: undefined, concurrency: 4, logLevel: "info" }),
    );
  });

  it("reads every variable, treating empty values as unset", () => {
    const config = loadConfig({
      NODE_ENV: "production",
      DATABASE_URL: "postgres://u:p@db:5432/app",
      WORKER_CONCURRENCY: "12",
      LOG_LEVEL: "debug",
      EMBEDDED_PG_PORT: "",
    });
    expect(config).toEqual(
      Either.right({
        nodeEnv: "production",
        databaseUrl: "postgres://u:p@db:5432/app",
        embeddedPostgresPort: undefined,
        concurrency: 12,
        logLevel: "debug",
      }),
    );
  });

  it("refuses production without DATABASE_URL", () => {
    const config = loadConfig({ NODE_ENV: "production", DATABASE_URL: "" });
    expect(Either.isLeft(config) && config.left.message).toContain("DATABASE_URL is required when NODE_ENV=production");
  });

  it("names each invalid variable", () => {
    const config = loadConfig({ WORKER_CONCURRENCY: "0", LOG_LEVEL: "loud", NODE_ENV: "staging" });
    expect(Either.isLeft(config)).toBe(true);
    const message = Either.isLeft(config) ? config.left.message : "";
    expect(message).toMatch(/^Invalid configuration: /);
    expect(message).toContain("WORKER_CONCURRENCY");
    expect(message).toContain("LOG_LEVEL");
    expect(message).toContain("NODE_ENV");
  });

  it("rejects a fractional concurrency", () => {
    const config = loadConfig({ WORKER_CONCURRENCY: "2.5" });
    expect(Either.isLeft(config) && config.left.message).toContain("WORKER_CONCURRENCY");
  });
});
