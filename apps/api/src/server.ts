/**
 * Starting and stopping the api: database pool, id codec, Koa app and HTTP
 * server, with a graceful stop (stop accepting, finish in-flight requests,
 * then close the pools).
 */
import type { Server } from "node:http";
import { createDatabase } from "@dc/db";
import type { Logger } from "pino";
import { createApp } from "./app.ts";
import type { Clock } from "@dc/runtime";
import type { ApiConfig } from "./config.ts";
import { createInFlight } from "./http/in-flight.ts";
import { answerParserRefusals } from "./http/parser-refusals.ts";
import { makeIds } from "@dc/db";
import { watchSnapshotStatus } from "./routes/snapshots/status-watch.ts";
import type { AppServices } from "./services.ts";

export interface RunningApi {
  readonly server: Server;
  readonly services: AppServices;
  /** Base URL the server listens on, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  readonly stop: () => Promise<void>;
}

export interface StartOptions {
  readonly config: ApiConfig;
  readonly databaseUrl: string;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** The `application_name` of the api's two pools, as `pg_stat_activity` shows them. */
export const API_POOL_NAMES = { main: "debt-collection-api", reads: "debt-collection-api-reads" } as const;

/**
 * A transaction of the api never waits on its client for long (a request's
 * body is read before its transaction begins): one left open and idle this
 * long is a leak, ended by PostgreSQL so its locks are released (docs/decisions/0020).
 */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

/** How long a stop waits, once every request has ended, for clients to take the rest of their responses. */
const STOP_UNREAD_RESPONSE_GRACE_MS = 5_000;

export const startApi = async (options: StartOptions): Promise<RunningApi> => {
  const bounded = {
    statementTimeoutMs: options.config.databaseStatementTimeoutMs,
    idleInTransactionTimeoutMs: IDLE_IN_TRANSACTION_TIMEOUT_MS,
  };
  const db = createDatabase({
    connectionString: options.databaseUrl,
    max: options.config.databasePoolSize,
    ...bounded,
    applicationName: API_POOL_NAMES.main,
    onIdleConnectionError: (error) => options.logger.warn({ err: error }, "idle database connection lost"),
  });
  const reads = createDatabase({
    connectionString: options.databaseUrl,
    max: options.config.databaseReadPoolSize,
    ...bounded,
    applicationName: API_POOL_NAMES.reads,
    genericPlans: true,
    onIdleConnectionError: (error) => options.logger.warn({ err: error }, "idle database connection lost"),
  });
  const services: AppServices = {
    db,
    reads,
    ids: makeIds(options.config.idEncryptionKey),
    clock: options.clock,
    config: options.config,
    logger: options.logger,
    snapshotStatus: watchSnapshotStatus(options.databaseUrl, options.logger),
  };
  const inFlight = createInFlight(options.config.maxConcurrentRequestsPerCompany);
  const app = createApp(services, inFlight);
  const server = app.listen(options.config.port, options.config.host);
  // Slow clients may not hold a connection open forever (headers and body). Node applies
  // headersTimeout from a request's first byte, so it does not cut an idle kept-alive connection.
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = options.config.httpKeepAliveTimeoutMs;
  answerParserRefusals(server, options.logger);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.config.port;
  const host = options.config.host === "0.0.0.0" ? "127.0.0.1" : options.config.host;
  return {
    server,
    services,
    url: `http://${host}:${port}`,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // A request whose client went away has no connection left but may still be running.
      const drained = inFlight.drain();
      // Status reads waiting for a snapshot to settle answer with the status as it is.
      await services.snapshotStatus.close();
      await drained;
      server.closeIdleConnections();
      // Every request has ended; a connection still busy is a response its client is not reading (a
      // compressed body streams until the client takes it). It may not hold the stop for long.
      const cut = setTimeout(() => server.closeAllConnections(), STOP_UNREAD_RESPONSE_GRACE_MS);
      await closed;
      clearTimeout(cut);
      await Promise.all([db.destroy(), reads.destroy()]);
    },
  };
};
