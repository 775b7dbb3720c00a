/**
 * The api's deployable entry: configuration, database (the embedded one in
 * development, migrated on start), server, and graceful shutdown on SIGTERM.
 */
import {
  createDatabase,
  isMigrationFailure,
  migrateAll,
  migrationFailureFields,
  resolveDevelopmentDatabase,
} from "@dc/db";
import { handleStopSignals } from "@dc/runtime";
import { DEVELOPMENT_KEY_WARNING } from "@dc/crypto";
import { createLogger, systemClock } from "@dc/runtime";
import { ConfigError, loadConfig } from "./config.ts";
import { startApi } from "./server.ts";

const main = async (): Promise<void> => {
  const config = loadConfig();
  const logger = createLogger("api", config.logLevel);
  if (config.developmentIdKey) logger.warn(DEVELOPMENT_KEY_WARNING);
  const database =
    config.databaseUrl === undefined
      ? await resolveDevelopmentDatabase(
          config.embeddedDatabasePort === undefined ? {} : { EMBEDDED_PG_PORT: String(config.embeddedDatabasePort) },
        )
      : { url: config.databaseUrl, owned: false, stop: async () => {} };
  if (config.environment !== "production") {
    const migrator = createDatabase({ connectionString: database.url, max: 1 });
    try {
      await migrateAll(migrator, database.url, {
        ...config.migrationLocks,
        onRetry: (retry) => logger.warn(retry, "migration waited too long for a lock: rolled back, retrying"),
      });
    } catch (error) {
      await migrator.destroy();
      await database.stop();
      if (!isMigrationFailure(error)) throw error;
      // Its message is the whole report (the migration, what stays applied, what to do): one line, no stack.
      logger.fatal(migrationFailureFields(error), "api failed to start: migration failed");
      process.exit(1);
    }
    await migrator.destroy();
  }
  const api = await startApi({ config, databaseUrl: database.url, clock: systemClock, logger });
  logger.info({ url: api.url, environment: config.environment }, "api started");

  handleStopSignals({
    stop: (signal) => {
      logger.info({ signal }, "api stopping");
      void api
        .stop()
        .then(() => database.stop())
        .then(() => {
          logger.info("api stopped");
          process.exit(0);
        });
    },
    exitNow: (signal) => {
      logger.warn({ signal }, "second signal during shutdown: exiting now");
      process.exit(1);
    },
  });
};

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
