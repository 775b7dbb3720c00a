import { NO_PROVIDERS } from "@dc/providers";
import { Either } from "effect";
import { describe, expect, it } from "vitest";
import { configurationTableGaps } from "@dc/testing";
import { loadConfig, WORKER_VARIABLES } from "../src/config.ts";

describe("loadConfig", () => {
  it("applies the development defaults to an empty environment", () => {
    expect(loadConfig({})).toEqual(
      Either.right({
        nodeEnv: "development",
        databaseUrl: undefined,
        embeddedPostgresPort: undefined,
        concurrency: 4,
        staleLockSeconds: 10,
        logLevel: "info",
        idEncryptionKey: new TextEncoder().encode("development-only-id-encryption-key-do-not-use-in-production"),
        developmentIdKey: true,
        webhooksAllowPrivateDestinations: true,
        metricsPort: undefined,
        retention: { webhookEventDays: 30, snapshotBodyDays: 90, stagedUploadDays: 7 },
        migrationLocks: { lockTimeoutMs: 3_000, retries: 10 },
        smtp: undefined,
        bounceSmtpPort: undefined,
        engineSendTimeoutSeconds: 600,
        publicBaseUrl: undefined,
        providers: NO_PROVIDERS,
      }),
    );
  });

  it("reads every variable, treating empty values as unset", () => {
    const config = loadConfig({
      NODE_ENV: "production",
      DATABASE_URL: "postgres://u:p@db:5432/app",
      WORKER_CONCURRENCY: "12",
      WORKER_STALE_LOCK_SECONDS: "1",
      LOG_LEVEL: "debug",
      WORKER_METRICS_PORT: "9100",
      WEBHOOK_EVENT_RETENTION_DAYS: "7",
      SNAPSHOT_BODY_RETENTION_DAYS: "0",
      STAGED_SNAPSHOT_EXPIRY_DAYS: "2",
      MIGRATION_LOCK_TIMEOUT_MS: "500",
      MIGRATION_LOCK_RETRIES: "3",
      EMBEDDED_PG_PORT: "",
      ID_ENCRYPTION_KEY: "production-id-encryption-key-of-at-least-32-bytes",
      SMTP_URL: "smtps://mailer:secret@smtp.example:465",
      MAIL_FROM: "Collections <collect@mail.example>",
      PUBLIC_BASE_URL: "https://api.collect.example",
      BOUNCE_ADDRESS: "Bounces <bounces@bounce.collect.example>",
      BOUNCE_SMTP_PORT: "2525",
      ENGINE_SEND_TIMEOUT_SECONDS: "90",
    });
    expect(config).toEqual(
      Either.right({
        nodeEnv: "production",
        databaseUrl: "postgres://u:p@db:5432/app",
        embeddedPostgresPort: undefined,
        concurrency: 12,
        staleLockSeconds: 1,
        logLevel: "debug",
        idEncryptionKey: new TextEncoder().encode("production-id-encryption-key-of-at-least-32-bytes"),
        developmentIdKey: false,
        webhooksAllowPrivateDestinations: false,
        metricsPort: 9100,
        retention: { webhookEventDays: 7, snapshotBodyDays: 0, stagedUploadDays: 2 },
        migrationLocks: { lockTimeoutMs: 500, retries: 3 },
        smtp: {
          url: "smtps://mailer:secret@smtp.example:465",
          from: "Collections <collect@mail.example>",
          tracking: {
            baseUrl: "https://api.collect.example",
            secret: new TextEncoder().encode("production-id-encryption-key-of-at-least-32-bytes"),
            bounceAddress: "bounces@bounce.collect.example",
          },
        },
        bounceSmtpPort: 2525,
        engineSendTimeoutSeconds: 90,
        publicBaseUrl: "https://api.collect.example",
        providers: NO_PROVIDERS,
      }),
    );
  });

  it("reads SMTP_URL with the development From, and refuses what is not an SMTP URL or one address", () => {
    const development = loadConfig({ SMTP_URL: "smtp://127.0.0.1:2525" });
    expect(Either.isRight(development) && development.right.smtp).toMatchObject({
      url: "smtp://127.0.0.1:2525",
      from: "Collections <collections@localhost>",
      tracking: { baseUrl: "http://localhost:3000", bounceAddress: undefined },
    });
    for (const [name, value] of [
      ["SMTP_URL", "http://smtp.example"],
      ["PUBLIC_BASE_URL", "https://api.collect.example/path"],
      ["BOUNCE_ADDRESS", "nobody"],
      ["BOUNCE_SMTP_PORT", "65536"],
      ["SMTP_URL", "not a url"],
      ["MAIL_FROM", "a@example.com, b@example.com"],
      ["MAIL_FROM", "nobody"],
    ] as const) {
      const config = loadConfig({ SMTP_URL: "smtp://127.0.0.1:2525", [name]: value });
      expect(Either.isLeft(config) && config.left.message).toContain(name);
    }
  });

  it("refuses SMTP_URL without MAIL_FROM in production", () => {
    const config = loadConfig({
      NODE_ENV: "production",
      DATABASE_URL: "postgres://u:p@db:5432/app",
      ID_ENCRYPTION_KEY: "production-id-encryption-key-of-at-least-32-bytes",
      SMTP_URL: "smtp://smtp.example",
      PUBLIC_BASE_URL: "https://api.collect.example",
    });
    expect(Either.isLeft(config) && config.left.message).toContain("MAIL_FROM is required with SMTP_URL");
    const untracked = loadConfig({
      NODE_ENV: "production",
      DATABASE_URL: "postgres://u:p@db:5432/app",
      ID_ENCRYPTION_KEY: "production-id-encryption-key-of-at-least-32-bytes",
      SMTP_URL: "smtp://smtp.example",
      MAIL_FROM: "collect@mail.example",
    });
    expect(Either.isLeft(untracked) && untracked.left.message).toContain("PUBLIC_BASE_URL is required with SMTP_URL");
  });

  it("refuses production without DATABASE_URL", () => {
    const config = loadConfig({ NODE_ENV: "production", DATABASE_URL: "" });
    expect(Either.isLeft(config) && config.left.message).toContain("DATABASE_URL is required when NODE_ENV=production");
  });

  it("refuses production without ID_ENCRYPTION_KEY, which opens the webhook signing secrets", () => {
    const config = loadConfig({ NODE_ENV: "production", DATABASE_URL: "postgres://u:p@db:5432/app" });
    expect(Either.isLeft(config) && config.left.message).toContain(
      "ID_ENCRYPTION_KEY is required when NODE_ENV=production",
    );
  });

  it("lets WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS override the environment's default", () => {
    const refused = loadConfig({ WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS: "false" });
    expect(Either.isRight(refused) && refused.right.webhooksAllowPrivateDestinations).toBe(false);
    const invalid = loadConfig({ WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS: "yes" });
    expect(Either.isLeft(invalid) && invalid.left.message).toContain("WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS");
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

  it("bounds WORKER_STALE_LOCK_SECONDS by graphile-worker's own 4-hour reset", () => {
    const config = loadConfig({ WORKER_STALE_LOCK_SECONDS: "14401" });
    expect(Either.isLeft(config) && config.left.message).toContain("WORKER_STALE_LOCK_SECONDS");
  });

  it("refuses a WORKER_STALE_LOCK_SECONDS of 0, which would leave a live pool no time to fence", () => {
    const config = loadConfig({ WORKER_STALE_LOCK_SECONDS: "0" });
    expect(Either.isLeft(config) && config.left.message).toContain("WORKER_STALE_LOCK_SECONDS");
  });

  it("reads WORKER_METRICS_PORT 0 as a free port, and refuses a port out of range", () => {
    const anyPort = loadConfig({ WORKER_METRICS_PORT: "0" });
    expect(Either.isRight(anyPort) && anyPort.right.metricsPort).toBe(0);
    for (const port of ["65536", "-1", "9464.5", "metrics"]) {
      const invalid = loadConfig({ WORKER_METRICS_PORT: port });
      expect(Either.isLeft(invalid) && invalid.left.message).toContain("WORKER_METRICS_PORT");
    }
  });

  it("refuses a negative or fractional retention, naming the variable", () => {
    for (const [name, value] of [
      ["WEBHOOK_EVENT_RETENTION_DAYS", "-1"],
      ["SNAPSHOT_BODY_RETENTION_DAYS", "1.5"],
      ["WEBHOOK_EVENT_RETENTION_DAYS", "forever"],
      ["STAGED_SNAPSHOT_EXPIRY_DAYS", "-7"],
    ] as const) {
      const config = loadConfig({ [name]: value });
      expect(Either.isLeft(config) && config.left.message).toContain(name);
    }
  });

  it("refuses a DATABASE_URL that is not PostgreSQL's and reads a whitespace-only value as unset, as the api does", () => {
    const mysql = loadConfig({ DATABASE_URL: "mysql://u:p@db/app" });
    expect(Either.isLeft(mysql) && mysql.left.message).toContain(
      "DATABASE_URL: must start with postgres:// or postgresql://",
    );
    const blank = loadConfig({ LOG_LEVEL: " " });
    expect(Either.isRight(blank) && blank.right.logLevel).toBe("info");
    // Used as given, like the api: a trimmed key would not open the secrets the api sealed.
    const key = " production-id-encryption-key-of-at-least-32-bytes ";
    const spaced = loadConfig({ ID_ENCRYPTION_KEY: key });
    expect(Either.isRight(spaced) && new TextDecoder().decode(spaced.right.idEncryptionKey)).toBe(key);
  });

  it("rejects a fractional concurrency", () => {
    const config = loadConfig({ WORKER_CONCURRENCY: "2.5" });
    expect(Either.isLeft(config) && config.left.message).toContain("WORKER_CONCURRENCY");
  });
});

describe("the README's Configuration table", () => {
  it("documents every variable the worker reads, as the worker's, and gives it none it does not read but Node's or the C library's", () => {
    expect(configurationTableGaps("worker", WORKER_VARIABLES, ["NODE_OPTIONS"])).toEqual({
      undocumented: [],
      notRead: [],
    });
  });
});
