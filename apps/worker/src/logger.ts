/**
 * The process logger: pino, JSON lines on stdout.
 */
import { type Level, type Logger, pino } from "pino";

/**
 * Creates the worker's root logger at `level` ("silent" turns it off). Writes
 * are synchronous: the log is low-volume, and main.ts ends with
 * `process.exit`, which must not reorder or drop the last lines.
 */
export const createLogger = (level: Level | "silent"): Logger =>
  pino(
    // ISO timestamps, as the api writes them, so the two processes' lines read and sort alike.
    { level, base: { service: "worker" }, timestamp: pino.stdTimeFunctions.isoTime },
    pino.destination({ dest: 1, sync: true }),
  );
