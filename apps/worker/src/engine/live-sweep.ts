/**
 * The live sweep (docs/decisions/0600, 0603): ends the pauses whose time
 * has come, reconciles stale sends, then runs batches of due followups
 * until none is left or its time budget is spent, and says when it should
 * run next: at once when work remains, else at the earlier of the next due
 * time and `idleSweepMs` from now (new work, an enrollment due at once,
 * appears without telling the sweep). Its cost is what is due: with nothing
 * due it is two index probes.
 */
import { nextLiveWorkAt } from "@dc/db";
import type { EngineDependencies } from "./engine-dependencies.ts";
import { recoverStaleSends } from "./recover-sends.ts";
import { resumeEndedPauses } from "./resume-ended-pauses.ts";
import { runBatch } from "./run-batch.ts";

export interface SweepResult {
  readonly claimed: number;
  readonly recorded: number;
  readonly resumed: number;
  readonly recovered: number;
  /** When the next sweep should run. */
  readonly nextRunAt: Date;
}

export const sweepLive = async (dependencies: EngineDependencies): Promise<SweepResult> => {
  const { clock, engine, db } = dependencies;
  const started = performance.now();
  const resumed = await resumeEndedPauses(dependencies, { kind: "live", now: clock.now() });
  const recovery = await recoverStaleSends(dependencies);
  let claimed = 0;
  let recorded = 0;
  let more = false;
  for (;;) {
    const batch = await runBatch(dependencies, { kind: "live", now: clock.now() });
    claimed += batch.claimed;
    recorded += batch.recorded;
    more = batch.claimed >= engine.batchSize;
    if (!more || performance.now() - started >= engine.sweepBudgetMs) break;
  }
  const now = clock.now();
  const idle = new Date(now.getTime() + engine.idleSweepMs);
  let nextRunAt = now;
  if (!more && resumed < engine.batchSize && recovery.claimed < engine.batchSize) {
    const next = await nextLiveWorkAt(db);
    nextRunAt = next === null || next > idle ? idle : next < now ? now : next;
  }
  return { claimed, recorded, resumed, recovered: recovery.claimed, nextRunAt };
};
