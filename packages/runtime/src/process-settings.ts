/**
 * The environment variables the api, the worker and the CLI all read, decoded
 * by one set of rules so a value one process refuses is never one another
 * accepts: the same schemas, and the same reading (a value that is empty or
 * only whitespace counts as unset; any other is used exactly as given, never
 * trimmed, since a trimmed `ID_ENCRYPTION_KEY` would be another key).
 */
import { Either, ParseResult, Schema } from "effect";
import { DEVELOPMENT_ID_ENCRYPTION_KEY } from "@dc/crypto";

export const NodeEnv = Schema.Literal("development", "test", "production");

export const LogLevel = Schema.Literal("fatal", "error", "warn", "info", "debug", "trace", "silent");

/** A PostgreSQL connection string; another scheme is refused at start-up, not at the first query. */
export const DatabaseUrl = Schema.String.pipe(
  Schema.pattern(/^postgres(ql)?:\/\//, { message: () => "must start with postgres:// or postgresql://" }),
);

/** Port of the embedded development database. */
export const EmbeddedDatabasePort = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 65_535));

/** Encrypts public ids and the webhook signing secrets at rest. */
export const IdEncryptionKey = Schema.String.pipe(Schema.minLength(32));

/**
 * The id key of a process: `ID_ENCRYPTION_KEY` as given, or the public
 * development key when it is unset (each app refuses that in production
 * before calling this), and whether that fallback is in use.
 */
export const idEncryptionKeyOf = (
  setting: string | undefined,
): { readonly idEncryptionKey: Uint8Array; readonly developmentIdKey: boolean } => ({
  idEncryptionKey: new TextEncoder().encode(setting ?? DEVELOPMENT_ID_ENCRYPTION_KEY),
  developmentIdKey: setting === undefined,
});

/**
 * The origin of `PUBLIC_BASE_URL` in canonical form (lower-case scheme and
 * host, no default port, no trailing slash), or undefined when the value is
 * not an http or https origin: a path, a query (even an empty `?`), a
 * fragment or credentials are refused, since the value is the OAuth issuer
 * (RFC 8414 2: no query or fragment; a path would move the metadata to
 * `/.well-known/oauth-authorization-server/{path}`, docs/decisions/0207).
 */
export const publicOrigin = (value: string): string | undefined => {
  if (!URL.canParse(value) || value.includes("?") || value.includes("#")) return undefined;
  const url = new URL(value);
  const httpScheme = url.protocol === "https:" || url.protocol === "http:";
  if (!httpScheme || url.username !== "" || url.password !== "" || url.pathname !== "/") return undefined;
  return url.origin;
};

/** `PUBLIC_BASE_URL`: the api's external origin (its OAuth issuer, its links). */
export const PublicBaseUrl = Schema.String.pipe(
  Schema.filter((value) => publicOrigin(value) !== undefined, {
    message: () =>
      "must be an http or https origin: scheme, host and optional port, without path, query, fragment or credentials",
  }),
);

/** `true` or `false`: may webhooks go to loopback or private addresses. */
export const AllowPrivateDestinations = Schema.Literal("true", "false");

/**
 * Whether webhooks may go to loopback or private addresses:
 * `WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS` when set, otherwise everywhere but in
 * production (docs/decisions/0454).
 */
export const allowsPrivateDestinations = (
  setting: typeof AllowPrivateDestinations.Type | undefined,
  nodeEnv: typeof NodeEnv.Type,
): boolean => (setting === undefined ? nodeEnv !== "production" : setting === "true");

/**
 * The variables every process reads, with their defaults; the migrator's
 * lock settings are `migrationVariables` of `@dc/db`, read by the same rules.
 * A process names each one it reads in its own `Schema.Struct` (`NODE_ENV:
 * sharedVariables.NODE_ENV`), where the field's place sets the order its
 * problems are listed in.
 */
export const sharedVariables = {
  NODE_ENV: Schema.optionalWith(NodeEnv, { default: () => "development" as const }),
  DATABASE_URL: Schema.optional(DatabaseUrl),
  EMBEDDED_PG_PORT: Schema.optional(EmbeddedDatabasePort),
  LOG_LEVEL: Schema.optionalWith(LogLevel, { default: () => "info" as const }),
  ID_ENCRYPTION_KEY: Schema.optional(IdEncryptionKey),
  WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS: Schema.optional(AllowPrivateDestinations),
};

/**
 * The variables a production process cannot start without that `values`
 * lacks, in that order: the database (or it would start an embedded one) and
 * the id key (or it would use the public development key). Empty outside
 * production.
 */
export const missingInProduction = (values: {
  readonly NODE_ENV: typeof NodeEnv.Type;
  readonly DATABASE_URL?: string | undefined;
  readonly ID_ENCRYPTION_KEY?: string | undefined;
}): ReadonlyArray<"DATABASE_URL" | "ID_ENCRYPTION_KEY"> =>
  values.NODE_ENV !== "production"
    ? []
    : [
        ...(values.DATABASE_URL === undefined ? (["DATABASE_URL"] as const) : []),
        ...(values.ID_ENCRYPTION_KEY === undefined ? (["ID_ENCRYPTION_KEY"] as const) : []),
      ];

/** The variables of `keys` that are set, as given; empty or whitespace-only values count as unset. */
export const presentVariables = (
  env: Readonly<Record<string, string | undefined>>,
  keys: ReadonlyArray<string>,
): Record<string, string> =>
  Object.fromEntries(
    keys.flatMap((key) => {
      const value = env[key];
      return value === undefined || value.trim() === "" ? [] : [[key, value]];
    }),
  );

/**
 * Decodes the variables named by `schema`'s fields from `env` (read as
 * `presentVariables` reads them), collecting every problem: on failure, one
 * `VARIABLE: message` line per problem, for the app to word its own error.
 */
export const decodeVariables = <A, I>(
  schema: Schema.Schema<A, I> & { readonly fields: Schema.Struct.Fields },
  env: Readonly<Record<string, string | undefined>>,
): Either.Either<A, ReadonlyArray<string>> =>
  Either.mapLeft(
    Schema.decodeUnknownEither(schema, { errors: "all" })(presentVariables(env, Object.keys(schema.fields))),
    (error) =>
      ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => `${issue.path.join(".")}: ${issue.message}`),
  );
