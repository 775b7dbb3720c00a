/** A pino logger whose JSON records are kept in memory, for asserting what was logged. */
import { type Logger, pino } from "pino";

export interface CapturedLogger {
  readonly logger: Logger;
  readonly records: ReadonlyArray<Record<string, unknown>>;
}

export const captureLogger = (): CapturedLogger => {
  const records: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => void records.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, records };
};
