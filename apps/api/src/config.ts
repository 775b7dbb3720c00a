/**
 * The api's configuration: the one module that reads `process.env`. Validated
 * at start-up; development gets safe defaults, production refuses to start
 * without its secrets.
 */
import {
  allowsPrivateDestinations,
  decodeVariables,
  idEncryptionKeyOf,
  missingInProduction,
  PublicBaseUrl,
  publicOrigin,
  sharedVariables,
} from "@dc/runtime";
import { SANDBOX_ADVANCE_MAX_WAIT_SECONDS } from "@dc/contract";
import { type ProviderSettings, providerSettingsOf, providerVariables } from "@dc/providers";
import { type MigrationLocks, migrationLocksOf, migrationVariables } from "@dc/db";
import { Either, Schema } from "effect";

const Environment = Schema.Struct({
  NODE_ENV: sharedVariables.NODE_ENV,
  PORT: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 65_535)), { default: () => 3000 }),
  HOST: Schema.optionalWith(Schema.String, { default: () => "0.0.0.0" }),
  DATABASE_URL: sharedVariables.DATABASE_URL,
  EMBEDDED_PG_PORT: sharedVariables.EMBEDDED_PG_PORT,
  ID_ENCRYPTION_KEY: sharedVariables.ID_ENCRYPTION_KEY,
  PUBLIC_BASE_URL: Schema.optional(PublicBaseUrl),
  STRIPE_BASE_URL: Schema.optionalWith(PublicBaseUrl, { default: () => "https://api.stripe.com" }),
  STRIPE_SECRET_KEY: Schema.optional(Schema.String.pipe(Schema.minLength(8))),
  STRIPE_WEBHOOK_SECRET: Schema.optional(Schema.String.pipe(Schema.minLength(8))),
  LOG_LEVEL: sharedVariables.LOG_LEVEL,
  DATABASE_POOL_SIZE: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 200)), {
    default: () => 10,
  }),
  DATABASE_READ_POOL_SIZE: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 200)), {
    default: () => 5,
  }),
  DATABASE_STATEMENT_TIMEOUT_MS: Schema.optionalWith(
    Schema.NumberFromString.pipe(Schema.int(), Schema.between(100, 600_000)),
    { default: () => 15_000 },
  ),
  DATABASE_BULK_STATEMENT_TIMEOUT_MS: Schema.optionalWith(
    Schema.NumberFromString.pipe(Schema.int(), Schema.between(1_000, 3_600_000)),
    { default: () => 120_000 },
  ),
  MAX_CONCURRENT_REQUESTS_PER_COMPANY: Schema.optionalWith(
    Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 10_000)),
    { default: () => 64 },
  ),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Schema.optionalWith(
    Schema.NumberFromString.pipe(Schema.int(), Schema.between(1_000, 3_600_000)),
    { default: () => 65_000 },
  ),
  WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS: sharedVariables.WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS,
  METRICS_TOKEN: Schema.optional(Schema.String.pipe(Schema.minLength(32))),
  POSTMARK_WEBHOOK_CREDENTIALS: Schema.optional(
    Schema.String.pipe(
      Schema.filter((value) => /^[^:]+:.{16,}$/.test(value) || "must be user:password, the password at least 16 characters"),
    ),
  ),
  RATE_LIMIT_SCALE: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1_000_000)), {
    default: () => 1,
  }),
  MIGRATION_LOCK_TIMEOUT_MS: migrationVariables.MIGRATION_LOCK_TIMEOUT_MS,
  MIGRATION_LOCK_RETRIES: migrationVariables.MIGRATION_LOCK_RETRIES,
  ...providerVariables,
});

/** Every environment variable the api reads (the README's Configuration table documents each). */
export const API_VARIABLES: ReadonlyArray<string> = Object.keys(Environment.fields);

export interface ApiConfig {
  readonly environment: "development" | "test" | "production";
  readonly port: number;
  readonly host: string;
  /** Undefined in development: the embedded database is used. */
  readonly databaseUrl: string | undefined;
  /** Port of the embedded development database (when DATABASE_URL is not set). */
  readonly embeddedDatabasePort: number | undefined;
  readonly idEncryptionKey: Uint8Array;
  /** True when `ID_ENCRYPTION_KEY` is not set and the public development key is in use. */
  readonly developmentIdKey: boolean;
  /**
   * The external origin (`PUBLIC_BASE_URL`, canonical, no trailing slash):
   * the OAuth issuer and the base of every absolute URL the api sends.
   * Required in production; elsewhere, when unset, each request's scheme and
   * host stand in (`http/public-base-url.ts`).
   */
  readonly publicBaseUrl: string | undefined;
  /**
   * The live payment provider of the debtor page (`STRIPE_BASE_URL`, default
   * `https://api.stripe.com`; `STRIPE_SECRET_KEY`; `STRIPE_WEBHOOK_SECRET`,
   * docs/decisions/0672). Undefined unless both secrets are set: live
   * companies' debtors then cannot pay online; sandbox companies always can.
   */
  readonly stripe: { readonly baseUrl: string; readonly secretKey: string; readonly webhookSecret: string } | undefined;
  readonly logLevel: string;
  readonly databasePoolSize: number;
  /** Connections of the hot-read pool, beside `databasePoolSize` (docs/decisions/0017). */
  readonly databaseReadPoolSize: number;
  /**
   * How long one statement of the api may run, lock waits included, before
   * PostgreSQL cancels it and the request is answered 503 (docs/decisions/0020).
   */
  readonly databaseStatementTimeoutMs: number;
  /**
   * The statement budget of the operations whose one statement grows with
   * the company's backlog (replaying or settling an endpoint's deliveries);
   * their lock waits keep `databaseStatementTimeoutMs` (docs/decisions/0020).
   */
  readonly databaseBulkStatementTimeoutMs: number;
  /** Requests of one company in progress at once on this process; more get 429 (docs/decisions/0013). */
  readonly maxConcurrentRequestsPerCompany: number;
  /**
   * How long an idle kept-alive connection stays open after its last
   * response. Above the idle timeout of the load balancer in front, which
   * would otherwise send a request on a connection the api is closing
   * (a 502 for the client; docs/operations.md, Load balancers).
   */
  readonly httpKeepAliveTimeoutMs: number;
  /** Multiplies every rate-limit budget (load tests); 1 in normal operation. */
  readonly rateLimitScale: number;
  /** Whether webhook endpoints may point at loopback or private addresses (SSRF); false in production by default. */
  readonly webhooksAllowPrivateDestinations: boolean;
  /**
   * Bearer token that `GET /metrics` requires. Without one, production does
   * not serve `/metrics` at all and other environments serve it openly.
   */
  readonly metricsToken: string | undefined;
  /**
   * `user:password` that Postmark's bounce webhook must present with HTTP
   * Basic (`POSTMARK_WEBHOOK_CREDENTIALS`, docs/channels.md). Unset: the
   * webhook route answers 404.
   */
  readonly postmarkWebhookCredentials: string | undefined;
  /**
   * How the development start and the CLI migrate: each lock wait bounded,
   * then retried (`MIGRATION_LOCK_TIMEOUT_MS`, `MIGRATION_LOCK_RETRIES`;
   * docs/decisions/0028).
   */
  readonly migrationLocks: MigrationLocks;
  /**
   * How long `POST /sandbox/clock/advance` waits for the worker before its 503
   * (`SANDBOX_ADVANCE_MAX_WAIT_SECONDS`, documented in the contract; no
   * setting changes it, tests shorten it).
   */
  readonly sandboxAdvanceWaitMs: number;
  /** The channel providers, whose callbacks the api verifies with their secrets (docs/channels.md, docs/decisions/0630). */
  readonly providers: ProviderSettings;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/**
 * Decodes the configuration from an environment record; throws ConfigError
 * listing every problem. `purpose` is `"server"` for the api process, which
 * in production also requires `PUBLIC_BASE_URL` (its OAuth issuer), https,
 * and `"cli"` for the admin CLI, which serves nothing and holds the
 * variable, when set, only to its form.
 */
export const loadConfig = (
  env: Readonly<Record<string, string | undefined>> = process.env,
  purpose: "server" | "cli" = "server",
): ApiConfig => {
  const decoded = decodeVariables(Environment, env);
  if (Either.isLeft(decoded)) throw new ConfigError(`invalid configuration:\n  ${decoded.left.join("\n  ")}`);
  const value = decoded.right;
  // The production rules of PUBLIC_BASE_URL are the server's: it is the issuer the api serves.
  const servingInProduction = value.NODE_ENV === "production" && purpose === "server";
  const missing = [
    ...missingInProduction(value),
    ...(servingInProduction && value.PUBLIC_BASE_URL === undefined ? ["PUBLIC_BASE_URL"] : []),
  ];
  if (missing.length > 0) throw new ConfigError(`production requires ${missing.join(" and ")} to be set`);
  const publicBaseUrl = value.PUBLIC_BASE_URL === undefined ? undefined : publicOrigin(value.PUBLIC_BASE_URL);
  if (servingInProduction && publicBaseUrl !== undefined && !publicBaseUrl.startsWith("https://")) {
    throw new ConfigError("production requires PUBLIC_BASE_URL to be an https URL");
  }
  return {
    environment: value.NODE_ENV,
    port: value.PORT,
    host: value.HOST,
    databaseUrl: value.DATABASE_URL,
    embeddedDatabasePort: value.EMBEDDED_PG_PORT,
    ...idEncryptionKeyOf(value.ID_ENCRYPTION_KEY),
    publicBaseUrl,
    stripe:
      value.STRIPE_SECRET_KEY === undefined || value.STRIPE_WEBHOOK_SECRET === undefined
        ? undefined
        : {
            baseUrl: publicOrigin(value.STRIPE_BASE_URL) ?? value.STRIPE_BASE_URL,
            secretKey: value.STRIPE_SECRET_KEY,
            webhookSecret: value.STRIPE_WEBHOOK_SECRET,
          },
    logLevel: value.LOG_LEVEL,
    databasePoolSize: value.DATABASE_POOL_SIZE,
    databaseReadPoolSize: value.DATABASE_READ_POOL_SIZE,
    databaseStatementTimeoutMs: value.DATABASE_STATEMENT_TIMEOUT_MS,
    databaseBulkStatementTimeoutMs: value.DATABASE_BULK_STATEMENT_TIMEOUT_MS,
    rateLimitScale: value.RATE_LIMIT_SCALE,
    maxConcurrentRequestsPerCompany: value.MAX_CONCURRENT_REQUESTS_PER_COMPANY,
    httpKeepAliveTimeoutMs: value.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    metricsToken: value.METRICS_TOKEN,
    postmarkWebhookCredentials: value.POSTMARK_WEBHOOK_CREDENTIALS,
    migrationLocks: migrationLocksOf(value),
    sandboxAdvanceWaitMs: SANDBOX_ADVANCE_MAX_WAIT_SECONDS * 1000,
    providers: providerSettingsOf(value),
    webhooksAllowPrivateDestinations: allowsPrivateDestinations(
      value.WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS,
      value.NODE_ENV,
    ),
  };
};
