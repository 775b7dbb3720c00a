/**
 * The worker's configuration, decoded once at start-up from the environment.
 * This is the only module that reads `process.env`; everything else receives
 * a `Config`.
 */
import {
  allowsPrivateDestinations,
  decodeVariables,
  idEncryptionKeyOf,
  missingInProduction,
  PublicBaseUrl,
  publicOrigin,
  type LogLevel,
  type NodeEnv,
  sharedVariables,
} from "@dc/runtime";
import { type MigrationLocks, migrationLocksOf, migrationVariables } from "@dc/db";
import { DEFAULT_ENGINE_SETTINGS } from "./engine/engine-settings.ts";
import { Data, Either, Schema } from "effect";
import { DEFAULT_RETENTION, type RetentionSettings } from "./retention.ts";
import { DEFAULT_STALE_LOCK_SECONDS } from "./worker-lease.ts";
import { parseMailFrom } from "./channels/mail-from.ts";
import type { SmtpSettings } from "./channels/smtp-adapter.ts";
import { type ProviderSettings, providerSettingsOf, providerVariables } from "@dc/providers";

const PositiveIntFromString = (maximum: number) =>
  Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, maximum));
/** Days kept by the retention purge; 0 keeps for good (docs/decisions/0021). */
const RetentionDays = Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 36_500));
/** graphile-worker itself frees locks older than 4 hours; a longer threshold would do nothing. */
const MAX_STALE_LOCK_SECONDS = 4 * 60 * 60;

/** `smtp://` or `smtps://` with a host (docs/decisions/0617). */
const SmtpUrl = Schema.String.pipe(
  Schema.filter((text) => {
    try {
      const url = new URL(text);
      return (
        ((url.protocol === "smtp:" || url.protocol === "smtps:") && url.hostname !== "") ||
        "must be smtp://host[:port] or smtps://host[:port]"
      );
    } catch {
      return "must be smtp://host[:port] or smtps://host[:port]";
    }
  }),
);

const MailFrom = Schema.String.pipe(
  Schema.filter((text) => {
    try {
      parseMailFrom(text);
      return true;
    } catch {
      return "must be one e-mail address, optionally with a name: Collections <collect@example.com>";
    }
  }),
);

/** Where the development api listens: the origin of the debtor page links when `PUBLIC_BASE_URL` is not set. */
export const DEVELOPMENT_PUBLIC_BASE_URL = "http://localhost:3000";

/** The From of development e-mails when `MAIL_FROM` is not set (production requires it with `SMTP_URL`). */
export const DEVELOPMENT_MAIL_FROM = "Collections <collections@localhost>";

const Environment = Schema.Struct({
  NODE_ENV: sharedVariables.NODE_ENV,
  DATABASE_URL: sharedVariables.DATABASE_URL,
  EMBEDDED_PG_PORT: sharedVariables.EMBEDDED_PG_PORT,
  WORKER_CONCURRENCY: Schema.optionalWith(PositiveIntFromString(1_000), { default: () => 4 }),
  WORKER_STALE_LOCK_SECONDS: Schema.optionalWith(
    PositiveIntFromString(MAX_STALE_LOCK_SECONDS),
    { default: () => DEFAULT_STALE_LOCK_SECONDS },
  ),
  LOG_LEVEL: sharedVariables.LOG_LEVEL,
  ID_ENCRYPTION_KEY: sharedVariables.ID_ENCRYPTION_KEY,
  WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS: sharedVariables.WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS,
  WORKER_METRICS_PORT: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 65_535))),
  WEBHOOK_EVENT_RETENTION_DAYS: Schema.optionalWith(RetentionDays, {
    default: () => DEFAULT_RETENTION.webhookEventDays,
  }),
  SNAPSHOT_BODY_RETENTION_DAYS: Schema.optionalWith(RetentionDays, {
    default: () => DEFAULT_RETENTION.snapshotBodyDays,
  }),
  STAGED_SNAPSHOT_EXPIRY_DAYS: Schema.optionalWith(RetentionDays, {
    default: () => DEFAULT_RETENTION.stagedUploadDays,
  }),
  MIGRATION_LOCK_TIMEOUT_MS: migrationVariables.MIGRATION_LOCK_TIMEOUT_MS,
  MIGRATION_LOCK_RETRIES: migrationVariables.MIGRATION_LOCK_RETRIES,
  PUBLIC_BASE_URL: Schema.optional(PublicBaseUrl),
  SMTP_URL: Schema.optional(SmtpUrl),
  MAIL_FROM: Schema.optional(MailFrom),
  ...providerVariables,
  BOUNCE_ADDRESS: Schema.optional(MailFrom),
  BOUNCE_SMTP_PORT: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 65_535))),
  ENGINE_SEND_TIMEOUT_SECONDS: Schema.optionalWith(
    Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 86_400)),
    { default: () => DEFAULT_ENGINE_SETTINGS.sendTimeoutMs / 1000 },
  ),
});

/** Every environment variable the worker reads (the README's Configuration table documents each). */
export const WORKER_VARIABLES: ReadonlyArray<string> = Object.keys(Environment.fields);

/** Validated settings of one worker process. */
export interface Config {
  readonly nodeEnv: typeof NodeEnv.Type;
  /** Absent in development: the embedded PostgreSQL is used instead. Always set in production. */
  readonly databaseUrl: string | undefined;
  /** Port of the development embedded PostgreSQL (`EMBEDDED_PG_PORT`), when overridden. */
  readonly embeddedPostgresPort: number | undefined;
  readonly concurrency: number;
  /**
   * The grace of the worker leases (`WORKER_STALE_LOCK_SECONDS`, default 10,
   * 1 to 14400; docs/decisions/0357): the jobs of a pool that has not renewed
   * its lease for this long are unlocked, and a pool that cannot renew its own
   * for half of it stops its process.
   */
  readonly staleLockSeconds: number;
  readonly logLevel: typeof LogLevel.Type;
  /** `ID_ENCRYPTION_KEY` (required in production, like the api's): opens the sealed webhook signing secrets. */
  readonly idEncryptionKey: Uint8Array;
  /** True when `ID_ENCRYPTION_KEY` is not set and the public development key is in use. */
  readonly developmentIdKey: boolean;
  /**
   * `WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS` (`true`/`false`): may webhooks go to
   * loopback, private, link-local... addresses? Default true outside
   * production, false in production (docs/decisions/0454).
   */
  readonly webhooksAllowPrivateDestinations: boolean;
  /**
   * Port of the `/metrics` and `/healthz` server (`WORKER_METRICS_PORT`; 0: a
   * free port, logged). Unset: no server, so several workers can share a host
   * (docs/decisions/0359; the worker image sets 9464).
   */
  readonly metricsPort: number | undefined;
  /**
   * Days the hourly purge keeps webhook events (`WEBHOOK_EVENT_RETENTION_DAYS`,
   * default 30) and settled snapshots' bodies (`SNAPSHOT_BODY_RETENTION_DAYS`,
   * default 90); 0 keeps them for good (docs/decisions/0021).
   */
  readonly retention: RetentionSettings;
  /**
   * How the development start migrates: each lock wait bounded, then retried
   * (`MIGRATION_LOCK_TIMEOUT_MS`, `MIGRATION_LOCK_RETRIES`; docs/decisions/0028).
   */
  readonly migrationLocks: MigrationLocks;
  /**
   * Where live companies' e-mails go (`SMTP_URL`, `MAIL_FROM`;
   * docs/decisions/0617). Unset: their e-mail steps fail with
   * `channel_not_configured`; sandbox companies never need it.
   */
  readonly smtp: SmtpSettings | undefined;
  /**
   * Where the bounce receiver listens (`BOUNCE_SMTP_PORT`; 0: a free port)
   * for delivery status notifications sent to `BOUNCE_ADDRESS`
   * (docs/decisions/0658). Unset: no receiver.
   */
  readonly bounceSmtpPort: number | undefined;
  /**
   * How long a send may stay `in_progress` before the recovery asks its
   * provider what it received (`ENGINE_SEND_TIMEOUT_SECONDS`, docs/decisions/0605).
   */
  readonly engineSendTimeoutSeconds: number;
  /**
   * The api's external origin (`PUBLIC_BASE_URL`, the api's variable): the
   * callback URLs given to providers and the debtor page links of the
   * messages start with it (docs/decisions/0670). Unset: live steps of the
   * providers that call back are not configured, and the links use
   * `DEVELOPMENT_PUBLIC_BASE_URL`.
   */
  readonly publicBaseUrl: string | undefined;
  /** The providers (Twilio, Retell, Lob) and their limits (docs/channels.md, docs/decisions/0630). */
  readonly providers: ProviderSettings;
}

/** The environment cannot run a worker; `message` names every offending variable. */
class ConfigError extends Data.TaggedError("ConfigError")<{ readonly message: string }> {}

/**
 * Decodes the environment (by default `process.env`). Empty values count as
 * unset. `DATABASE_URL` is required when `NODE_ENV=production`, so a
 * production worker can never start an embedded database by accident.
 */
export const loadConfig = (
  env: Readonly<Record<string, string | undefined>> = process.env,
): Either.Either<Config, ConfigError> => {
  const decoded = decodeVariables(Environment, env);
  if (Either.isLeft(decoded)) {
    return Either.left(new ConfigError({ message: `Invalid configuration: ${decoded.left.join("; ")}` }));
  }
  const values = decoded.right;
  const [missing] = missingInProduction(values);
  if (missing !== undefined) {
    return Either.left(
      new ConfigError({ message: `Invalid configuration: ${missing} is required when NODE_ENV=production` }),
    );
  }
  if (values.NODE_ENV === "production" && values.SMTP_URL !== undefined && values.PUBLIC_BASE_URL === undefined) {
    return Either.left(
      new ConfigError({
        message: "Invalid configuration: PUBLIC_BASE_URL is required with SMTP_URL when NODE_ENV=production",
      }),
    );
  }
  if (values.NODE_ENV === "production" && values.SMTP_URL !== undefined && values.MAIL_FROM === undefined) {
    return Either.left(
      new ConfigError({
        message: "Invalid configuration: MAIL_FROM is required with SMTP_URL when NODE_ENV=production",
      }),
    );
  }
  return Either.right({
    nodeEnv: values.NODE_ENV,
    databaseUrl: values.DATABASE_URL,
    embeddedPostgresPort: values.EMBEDDED_PG_PORT,
    concurrency: values.WORKER_CONCURRENCY,
    staleLockSeconds: values.WORKER_STALE_LOCK_SECONDS,
    logLevel: values.LOG_LEVEL,
    ...idEncryptionKeyOf(values.ID_ENCRYPTION_KEY),
    webhooksAllowPrivateDestinations: allowsPrivateDestinations(
      values.WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS,
      values.NODE_ENV,
    ),
    metricsPort: values.WORKER_METRICS_PORT,
    retention: {
      webhookEventDays: values.WEBHOOK_EVENT_RETENTION_DAYS,
      snapshotBodyDays: values.SNAPSHOT_BODY_RETENTION_DAYS,
      stagedUploadDays: values.STAGED_SNAPSHOT_EXPIRY_DAYS,
    },
    migrationLocks: migrationLocksOf(values),
    smtp:
      values.SMTP_URL === undefined
        ? undefined
        : {
            url: values.SMTP_URL,
            from: values.MAIL_FROM ?? DEVELOPMENT_MAIL_FROM,
            tracking: {
              baseUrl: new URL(values.PUBLIC_BASE_URL ?? DEVELOPMENT_PUBLIC_BASE_URL).origin,
              secret: idEncryptionKeyOf(values.ID_ENCRYPTION_KEY).idEncryptionKey,
              bounceAddress: values.BOUNCE_ADDRESS === undefined ? undefined : parseMailFrom(values.BOUNCE_ADDRESS).address,
            },
          },
    bounceSmtpPort: values.BOUNCE_SMTP_PORT,
    engineSendTimeoutSeconds: values.ENGINE_SEND_TIMEOUT_SECONDS,
    publicBaseUrl: values.PUBLIC_BASE_URL === undefined ? undefined : publicOrigin(values.PUBLIC_BASE_URL),
    providers: providerSettingsOf(values),
  });
};
