/**
 * graphile-worker's `Logger` writing through our pino logger, so the queue's
 * own messages (connections, job failures, shutdown) share the JSON stream.
 */
import { type LogLevel, Logger as WorkerLogger } from "graphile-worker";
import type { Level, Logger } from "pino";

const levels: Readonly<Record<LogLevel, Level>> = {
  error: "error",
  warning: "warn",
  info: "info",
  debug: "debug",
};

/** Adapts `logger` to graphile-worker; the log scope (worker, task, job) becomes pino bindings. */
export const toWorkerLogger = (logger: Logger): WorkerLogger =>
  new WorkerLogger((scope) => {
    const bindings = Object.fromEntries(Object.entries(scope).filter(([, value]) => value !== undefined));
    const scoped = logger.child({ component: "graphile-worker", ...bindings });
    return (level, message, meta) => scoped[levels[level]](meta ?? {}, message);
  });
