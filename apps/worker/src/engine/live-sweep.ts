/**
 * The live sweep (docs/decisions/0600, 0603): one statement of index probes
 * says whether anything is due, a pause has ended or a send is stale; with
 * nothing to do the sweep ends there. Otherwise it ends the pauses whose
 * time has come, reconciles stale sends, then runs batches of due followups
 * until none is left or its time budget is spent. It says when it should
 * run next: at once when work remains, else at the earlier of the next due
 * time and `idleSweepMs` from now (new work, an enrollment due at once,
 * appears without telling the sweep).
 */
import { findLiveWork } from "@dc/db";
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

const staleBound = (dependencies: EngineDependencies): Date =>
  new Date(dependencies.clock.now().getTime() - dependencies.engine.sendTimeoutMs);

export const sweepLive = async (dependencies: EngineDependencies): Promise<SweepResult> => {
  const { clock, engine, db } = dependencies;
  const started = performance.now();
  const idleUntil = (now: Date, next: Date | null): Date => {
    const idle = new Date(now.getTime() + engine.idleSweepMs);
    return next === null || next > idle ? idle : next < now ? now : next;
  };
  const work = await findLiveWork(db, staleBound(dependencies));
  const now = clock.now();
  if (!work.staleSends && (work.nextAt === null || work.nextAt > now)) {
    return { claimed: 0, recorded: 0, resumed: 0, recovered: 0, nextRunAt: idleUntil(now, work.nextAt) };
  }
  const resumed = await resumeEndedPauses(dependencies, { kind: "live", now });
  const recovery = work.staleSends ? await recoverStaleSends(dependencies) : { claimed: 0 };
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
  const after = clock.now();
  const exhausted = more || resumed >= engine.batchSize || recovery.claimed >= engine.batchSize;
  const nextRunAt = exhausted ? after : idleUntil(after, (await findLiveWork(db, staleBound(dependencies))).nextAt);
  return { claimed, recorded, resumed, recovered: recovery.claimed, nextRunAt };
};
