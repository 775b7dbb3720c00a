/**
 * The processes' structured logs: pino, JSON lines on stdout, ISO timestamps
 * (so the api's and the worker's lines read and sort alike), and credentials
 * redacted wherever they appear in a logged object.
 */
import { type DestinationStream, type Logger, pino } from "pino";

/** Paths censored in every process's log lines: authorization headers, tokens, client secrets, passwords. */
export const redactedPaths = [
  "req.headers.authorization",
  "headers.authorization",
  "authorization",
  "client_secret",
  "*.client_secret",
  "access_token",
  "*.access_token",
  "refresh_token",
  "*.refresh_token",
  "password",
  "*.password",
];

/** The processes that log, each named in the `service` field of its lines. */
export type Service = "api" | "worker";

// A top-level `code` is an OAuth authorization code in the api; in the worker it is a snapshot's
// failure code (`processing_error`), which operators need to read.
const pathsOf: Readonly<Record<Service, ReadonlyArray<string>>> = {
  api: [...redactedPaths, "code"],
  worker: redactedPaths,
};

/**
 * Creates the root logger of `service` at `level` ("silent" turns it off),
 * writing to `destination` (pino's asynchronous stdout when omitted).
 *
 * @example
 * createLogger("worker", "info", pino.destination({ dest: 1, sync: true }))
 */
export const createLogger = (service: Service, level: string, destination?: DestinationStream): Logger =>
  pino(
    {
      level,
      base: { service },
      redact: { paths: [...pathsOf[service]], censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
