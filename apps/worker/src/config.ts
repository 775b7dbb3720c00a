/**
 * The worker's configuration, decoded once at start-up from the environment.
 * This is the only module that reads `process.env`; everything else receives
 * a `Config`.
 */
import { Data, Either, ParseResult, Schema } from "effect";

const LogLevel = Schema.Literal("fatal", "error", "warn", "info", "debug", "trace", "silent");
const NodeEnv = Schema.Literal("development", "production", "test");
const PositiveIntFromString = (maximum: number) =>
  Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, maximum));

const Environment = Schema.Struct({
  NODE_ENV: Schema.optionalWith(NodeEnv, { default: () => "development" as const }),
  DATABASE_URL: Schema.optional(Schema.String),
  EMBEDDED_PG_PORT: Schema.optional(PositiveIntFromString(65_535)),
  WORKER_CONCURRENCY: Schema.optionalWith(PositiveIntFromString(1_000), { default: () => 4 }),
  LOG_LEVEL: Schema.optionalWith(LogLevel, { default: () => "info" as const }),
});

/** Validated settings of one worker process. */
export interface Config {
  readonly nodeEnv: typeof NodeEnv.Type;
  /** Absent in development: the embedded PostgreSQL is used instead. Always set in production. */
  readonly databaseUrl: string | undefined;
  /** Port of the development embedded PostgreSQL (`EMBEDDED_PG_PORT`), when overridden. */
  readonly embeddedPostgresPort: number | undefined;
  readonly concurrency: number;
  readonly logLevel: typeof LogLevel.Type;
}

/** The environment cannot run a worker; `message` names every offending variable. */
export class ConfigError extends Data.TaggedError("ConfigError")<{ readonly message: string }> {}

/**
 * Decodes the environment (by default `process.env`). Empty values count as
 * unset. `DATABASE_URL` is required when `NODE_ENV=production`, so a
 * production worker can never start an embedded database by accident.
 */
export const loadConfig = (
  env: Readonly<Record<string, string | undefined>> = process.env,
): Either.Either<Config, ConfigError> => {
  const present = Object.fromEntries(
    Object.keys(Environment.fields).flatMap((key) => {
      const value = env[key];
      return value === undefined || value.trim() === "" ? [] : [[key, value.trim()]];
    }),
  );
  const decoded = Schema.decodeUnknownEither(Environment, { errors: "all" })(present);
  if (Either.isLeft(decoded)) {
    const issues = ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map(
      (issue) => `${issue.path.join(".")}: ${issue.message}`,
    );
    return Either.left(new ConfigError({ message: `Invalid configuration: ${issues.join("; ")}` }));
  }
  const values = decoded.right;
  if (values.NODE_ENV === "production" && values.DATABASE_URL === undefined) {
    return Either.left(
      new ConfigError({
        message: "Invalid configuration: DATABASE_URL is required when NODE_ENV=production",
      }),
    );
  }
  return Either.right({
    nodeEnv: values.NODE_ENV,
    databaseUrl: values.DATABASE_URL,
    embeddedPostgresPort: values.EMBEDDED_PG_PORT,
    concurrency: values.WORKER_CONCURRENCY,
    logLevel: values.LOG_LEVEL,
  });
};
