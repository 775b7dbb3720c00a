/** Structured JSON logs (pino); credentials are redacted wherever they appear in a logged object. */
import { pino, type Logger } from "pino";

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
  "code",
];

export const createLogger = (level: string, destination?: pino.DestinationStream): Logger =>
  pino(
    {
      level,
      base: { service: "api" },
      redact: { paths: redactedPaths, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
