/** What every process of the platform shares at run time: settings, stop signals, the clock and the logger. */
export * from "./clock.ts";
export * from "./logger.ts";
export * from "./process-settings.ts";
export * from "./stop-signals.ts";
