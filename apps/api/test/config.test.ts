/** The api's environment: the database pools' sizes (docs/decisions/0017), the id key and the metrics token. */
import { describe, expect, it } from "vitest";
import { configurationTableGaps } from "@dc/testing";
import { API_VARIABLES, ConfigError, loadConfig } from "../src/config.ts";

describe("loadConfig: database pools", () => {
  it("sizes the main pool at 10 and the hot-read pool at 5 by default", () => {
    const config = loadConfig({});
    expect([config.databasePoolSize, config.databaseReadPoolSize]).toEqual([10, 5]);
  });

  it("takes DATABASE_POOL_SIZE and DATABASE_READ_POOL_SIZE", () => {
    const config = loadConfig({ DATABASE_POOL_SIZE: "20", DATABASE_READ_POOL_SIZE: "8" });
    expect([config.databasePoolSize, config.databaseReadPoolSize]).toEqual([20, 8]);
  });

  it("refuses a read pool of no connection or a fractional size, naming the variable", () => {
    for (const size of ["0", "2.5", "201", "many"]) {
      expect(() => loadConfig({ DATABASE_READ_POOL_SIZE: size })).toThrow(ConfigError);
      expect(() => loadConfig({ DATABASE_READ_POOL_SIZE: size })).toThrow(/DATABASE_READ_POOL_SIZE/);
    }
  });

  it("bounds the migrator's lock waits at 3 s, 10 retries, by default, or MIGRATION_LOCK_* (decision 0028)", () => {
    expect(loadConfig({}).migrationLocks).toEqual({ lockTimeoutMs: 3_000, retries: 10 });
    expect(loadConfig({ MIGRATION_LOCK_TIMEOUT_MS: "100", MIGRATION_LOCK_RETRIES: "0" }).migrationLocks).toEqual({
      lockTimeoutMs: 100,
      retries: 0,
    });
    expect(() => loadConfig({ MIGRATION_LOCK_TIMEOUT_MS: "99" })).toThrow(/MIGRATION_LOCK_TIMEOUT_MS/);
    expect(() => loadConfig({ MIGRATION_LOCK_RETRIES: "1.5" })).toThrow(/MIGRATION_LOCK_RETRIES/);
  });

  it("bounds statements at 15 s by default, or DATABASE_STATEMENT_TIMEOUT_MS from 100 to 600,000 (decision 0020)", () => {
    expect(loadConfig({}).databaseStatementTimeoutMs).toBe(15_000);
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: "100" }).databaseStatementTimeoutMs).toBe(100);
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: "600000" }).databaseStatementTimeoutMs).toBe(600_000);
    for (const timeout of ["0", "99", "600001", "2.5", "soon"]) {
      expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: timeout })).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS/);
    }
  });

  it("gives the backlog operations 120 s by default, or DATABASE_BULK_STATEMENT_TIMEOUT_MS from 1,000 to 3,600,000", () => {
    expect(loadConfig({}).databaseBulkStatementTimeoutMs).toBe(120_000);
    expect(loadConfig({ DATABASE_BULK_STATEMENT_TIMEOUT_MS: "1000" }).databaseBulkStatementTimeoutMs).toBe(1_000);
    for (const timeout of ["999", "3600001", "later"]) {
      expect(() => loadConfig({ DATABASE_BULK_STATEMENT_TIMEOUT_MS: timeout })).toThrow(/DATABASE_BULK_STATEMENT_TIMEOUT_MS/);
    }
  });
});

describe("loadConfig: HTTP connections", () => {
  it("keeps idle connections 65 s by default, above common load balancers' 60 s, or HTTP_KEEP_ALIVE_TIMEOUT_MS from 1,000 to 3,600,000", () => {
    expect(loadConfig({}).httpKeepAliveTimeoutMs).toBe(65_000);
    expect(loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: "620000" }).httpKeepAliveTimeoutMs).toBe(620_000);
    for (const timeout of ["999", "3600001", "1.5", "long"]) {
      expect(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: timeout })).toThrow(/HTTP_KEEP_ALIVE_TIMEOUT_MS/);
    }
  });
});

describe("loadConfig: keys and metrics", () => {
  it("says when the public development id key is in use", () => {
    expect(loadConfig({}).developmentIdKey).toBe(true);
    const keyed = loadConfig({ ID_ENCRYPTION_KEY: "an-id-encryption-key-of-at-least-32-bytes" });
    expect(keyed.developmentIdKey).toBe(false);
    expect(new TextDecoder().decode(keyed.idEncryptionKey)).toBe("an-id-encryption-key-of-at-least-32-bytes");
  });

  it("takes METRICS_TOKEN of at least 32 characters, naming the variable otherwise", () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: "m".repeat(32) }).metricsToken).toBe("m".repeat(32));
    expect(() => loadConfig({ METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN/);
  });
});

describe("loadConfig: the variables the worker reads too, by the same rules (@dc/runtime process-settings)", () => {
  it("reads an empty or whitespace-only value as unset and uses the others exactly as given", () => {
    expect(loadConfig({ LOG_LEVEL: " " }).logLevel).toBe("info");
    expect(loadConfig({ DATABASE_URL: "" }).databaseUrl).toBeUndefined();
    expect(() => loadConfig({ LOG_LEVEL: " debug " })).toThrow(/LOG_LEVEL/);
    // Never trimmed: a key with its spaces removed would be another key, and every id would change.
    const key = " production-id-encryption-key-of-at-least-32-bytes ";
    expect(new TextDecoder().decode(loadConfig({ ID_ENCRYPTION_KEY: key }).idEncryptionKey)).toBe(key);
  });

  it("refuses production without DATABASE_URL, ID_ENCRYPTION_KEY or PUBLIC_BASE_URL, naming each one missing", () => {
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrow(
      new ConfigError("production requires DATABASE_URL and ID_ENCRYPTION_KEY and PUBLIC_BASE_URL to be set"),
    );
    expect(() =>
      loadConfig({ NODE_ENV: "production", DATABASE_URL: "postgres://u:p@db/app", PUBLIC_BASE_URL: "https://api.example" }),
    ).toThrow(new ConfigError("production requires ID_ENCRYPTION_KEY to be set"));
    expect(loadConfig({ NODE_ENV: "test" }).databaseUrl).toBeUndefined();
  });

  it("allows private webhook destinations outside production unless WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS says", () => {
    const production = {
      NODE_ENV: "production",
      DATABASE_URL: "postgres://u:p@db/app",
      ID_ENCRYPTION_KEY: "production-id-encryption-key-of-at-least-32-bytes",
      PUBLIC_BASE_URL: "https://api.example",
    };
    expect(loadConfig({}).webhooksAllowPrivateDestinations).toBe(true);
    expect(loadConfig({ WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS: "false" }).webhooksAllowPrivateDestinations).toBe(false);
    expect(loadConfig(production).webhooksAllowPrivateDestinations).toBe(false);
    const allowed = loadConfig({ ...production, WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS: "true" });
    expect(allowed.webhooksAllowPrivateDestinations).toBe(true);
    expect(() => loadConfig({ WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS: "yes" })).toThrow(/WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS/);
  });

  it("refuses a DATABASE_URL that is not PostgreSQL's, naming the variable", () => {
    expect(() => loadConfig({ DATABASE_URL: "mysql://u:p@db/app" })).toThrow(
      /DATABASE_URL: must start with postgres:\/\/ or postgresql:\/\//,
    );
  });
});

describe("loadConfig: PUBLIC_BASE_URL, the OAuth issuer (docs/decisions/0207)", () => {
  const production = {
    NODE_ENV: "production",
    DATABASE_URL: "postgres://u:p@db/app",
    ID_ENCRYPTION_KEY: "production-id-encryption-key-of-at-least-32-bytes",
  };

  it("is optional outside production, where each request's scheme and host stand in", () => {
    expect(loadConfig({}).publicBaseUrl).toBeUndefined();
  });

  it("keeps the origin in its canonical form: no trailing slash, scheme and host in lower case, no default port", () => {
    expect(loadConfig({ PUBLIC_BASE_URL: "https://api.example/" }).publicBaseUrl).toBe("https://api.example");
    expect(loadConfig({ PUBLIC_BASE_URL: "HTTPS://API.Example:443" }).publicBaseUrl).toBe("https://api.example");
    expect(loadConfig({ PUBLIC_BASE_URL: "http://localhost:3000" }).publicBaseUrl).toBe("http://localhost:3000");
  });

  it.each([
    ["a path", "https://api.example/dc"],
    ["a query", "https://api.example/?tenant=1"],
    ["an empty query", "https://api.example?"],
    ["a fragment", "https://api.example/#top"],
    ["credentials", "https://user:pass@api.example"],
    ["another scheme", "ftp://api.example"],
    ["no URL at all", "api.example"],
  ])("refuses %s, naming the variable", (_, value) => {
    expect(() => loadConfig({ PUBLIC_BASE_URL: value })).toThrow(/PUBLIC_BASE_URL: must be an http or https origin/);
  });

  it("is required in production, and https there", () => {
    expect(loadConfig({ ...production, PUBLIC_BASE_URL: "https://api.example" }).publicBaseUrl).toBe("https://api.example");
    expect(() => loadConfig(production)).toThrow(new ConfigError("production requires PUBLIC_BASE_URL to be set"));
    expect(() => loadConfig({ ...production, PUBLIC_BASE_URL: "http://api.example" })).toThrow(
      new ConfigError("production requires PUBLIC_BASE_URL to be an https URL"),
    );
  });

  it("is neither required nor held to https for the admin CLI, which serves nothing", () => {
    expect(loadConfig(production, "cli").publicBaseUrl).toBeUndefined();
    expect(loadConfig({ ...production, PUBLIC_BASE_URL: "http://api.example" }, "cli").publicBaseUrl).toBe("http://api.example");
  });
});

describe("the README's Configuration table", () => {
  it("documents every variable the api reads, as the api's, and gives it none it does not read but Node's or the C library's", () => {
    expect(configurationTableGaps("api", API_VARIABLES, ["NODE_OPTIONS", "MALLOC_ARENA_MAX"])).toEqual({ undocumented: [], notRead: [] });
  });
});
