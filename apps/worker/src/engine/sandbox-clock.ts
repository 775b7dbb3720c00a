/**
 * Moves a sandbox company's clock to a later time, running on the way
 * everything that falls due (docs/decisions/0600, 0606): the clock steps to
 * each earlier time a followup or a timed pause of the company is due, the
 * same code as the live sweep runs what is due at that instant (deferrals
 * move followups later, outcomes schedule the next steps, which may fall
 * due before `to` too), and finally the clock is set to `to`. The number of
 * steps is bounded, so a timeline that keeps deferring cannot hold the job.
 */
import { advanceSandboxClock, findSandboxClock, nextSandboxWorkAt } from "@dc/db";
import type { EngineDependencies } from "./engine-dependencies.ts";
import { resumeEndedPauses } from "./resume-ended-pauses.ts";
import { runBatch } from "./run-batch.ts";

/** Most instants one advance stops at; the clock still ends at `to`. */
export const MAX_CLOCK_STEPS = 10_000;

export interface AdvanceResult {
  /** The company's clock after the advance; undefined when the company is not a sandbox company. */
  readonly now: Date | undefined;
  readonly steps: number;
  readonly claimed: number;
}

/** Runs everything of the sandbox company due at its clock now. */
const runDueNow = async (dependencies: EngineDependencies, companyId: number): Promise<number> => {
  const scope = { kind: "sandbox", companyId } as const;
  let claimed = 0;
  for (;;) {
    const resumed = await resumeEndedPauses(dependencies, scope);
    const batch = await runBatch(dependencies, scope);
    claimed += batch.claimed;
    if (batch.claimed === 0 && resumed === 0) return claimed;
  }
};

export const advanceSandbox = async (
  dependencies: EngineDependencies,
  companyId: number,
  to: Date,
): Promise<AdvanceResult> => {
  const { db, logger } = dependencies;
  if ((await findSandboxClock(db, companyId)) === undefined) return { now: undefined, steps: 0, claimed: 0 };
  let claimed = await runDueNow(dependencies, companyId);
  let steps = 0;
  for (; steps < MAX_CLOCK_STEPS; steps++) {
    const next = await nextSandboxWorkAt(db, companyId, to);
    if (next === null) break;
    const clock = await advanceSandboxClock(db, companyId, next);
    const ran = await runDueNow(dependencies, companyId);
    claimed += ran;
    // Something due now that no round could take (a row locked elsewhere): give it a moment.
    if (ran === 0 && clock !== undefined && next <= clock) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (steps >= MAX_CLOCK_STEPS)
    logger.warn({ companyId, to, steps }, "sandbox clock advance stopped early: too many due instants");
  const now = await advanceSandboxClock(db, companyId, to);
  return { now, steps, claimed };
};
