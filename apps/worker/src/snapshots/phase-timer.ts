/**
 * Times the phases of one snapshot run for its log line: each step runs
 * through `timed`, which adds the step's duration, waiting included, to its
 * phase. A phase timed twice adds up; phases may nest (a nested phase's time
 * counts in both).
 */

/**
 * A timer for `phases`, all starting at 0 ms.
 *
 * @example
 * const { timed, rounded } = phaseTimer(["read", "plan"]);
 * const rows = await timed("read", () => loadRows());
 * const plan = await timed("plan", () => planOf(rows));
 * rounded(); // { read: 12, plan: 3 }
 */
export const phaseTimer = <Phase extends string>(phases: ReadonlyArray<Phase>) => {
  const ms = Object.fromEntries(phases.map((phase) => [phase, 0])) as Record<Phase, number>;
  return {
    /** Runs `step` and adds the time it took to `phase`, whether it returns or throws. */
    timed: async <T>(phase: Phase, step: () => T | Promise<T>): Promise<T> => {
      const started = performance.now();
      try {
        return await step();
      } finally {
        ms[phase] += performance.now() - started;
      }
    },
    /** Whole milliseconds per phase so far. */
    rounded: (): Record<Phase, number> =>
      Object.fromEntries(phases.map((phase) => [phase, Math.round(ms[phase])])) as Record<Phase, number>,
  };
};
