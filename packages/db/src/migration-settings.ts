/**
 * The migrator's lock settings as environment variables
 * (`MIGRATION_LOCK_TIMEOUT_MS`, `MIGRATION_LOCK_RETRIES`, docs/decisions/0028),
 * decoded by the rules of `@dc/runtime`'s process settings. Each process
 * names them in its own `Schema.Struct` beside `sharedVariables`.
 */
import { Schema } from "effect";
import { DEFAULT_MIGRATION_LOCKS, type MigrationLocks } from "./migration-locks.ts";

/** How long one lock wait of a migration may last, in milliseconds. */
export const MigrationLockTimeoutMs = Schema.NumberFromString.pipe(Schema.int(), Schema.between(100, 600_000));

/** How many times a migration that ran out of time waiting for a lock is tried again. */
export const MigrationLockRetries = Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 1_000));

/** The migrator's variables, with their defaults (`MIGRATION_LOCK_TIMEOUT_MS: migrationVariables.MIGRATION_LOCK_TIMEOUT_MS`). */
export const migrationVariables = {
  MIGRATION_LOCK_TIMEOUT_MS: Schema.optionalWith(MigrationLockTimeoutMs, {
    default: () => DEFAULT_MIGRATION_LOCKS.lockTimeoutMs,
  }),
  MIGRATION_LOCK_RETRIES: Schema.optionalWith(MigrationLockRetries, { default: () => DEFAULT_MIGRATION_LOCKS.retries }),
};

/**
 * The migrator's settings alone, for the paths that migrate without a
 * process's whole configuration (`pnpm db:migrate`, `pnpm dev`).
 */
export const MigrationVariables = Schema.Struct(migrationVariables);

/** The migrator's lock settings from decoded variables. */
export const migrationLocksOf = (values: {
  readonly MIGRATION_LOCK_TIMEOUT_MS: number;
  readonly MIGRATION_LOCK_RETRIES: number;
}): MigrationLocks => ({ lockTimeoutMs: values.MIGRATION_LOCK_TIMEOUT_MS, retries: values.MIGRATION_LOCK_RETRIES });
