/**
 * `engine_sweep`: the live companies' collection sweep (docs/decisions/0600,
 * 0603). One job, job key `engine-sweep`: each run sweeps (live-sweep.ts)
 * and adds the key's next run at the time the sweep names, so the chain
 * keeps itself going; graphile-worker keeps that next job apart from the
 * running one. A run that fails is retried by graphile-worker, and the
 * minute's cron entry (crontab.ts) re-adds the key if the chain was lost.
 */
import { type Db, ENGINE_SWEEP_TASK, enqueueEngineSweep } from "@dc/db";
import { Schema } from "effect";
import type { Task } from "graphile-worker";
import { defineTask } from "../define-task.ts";
import type { EngineDependencies } from "../engine/engine-dependencies.ts";
import { sweepLive } from "../engine/live-sweep.ts";

export const ENGINE_SWEEP = ENGINE_SWEEP_TASK;

/** The payload: nothing, or graphile-worker's cron stamp. */
const Payload = Schema.Struct({ _cron: Schema.optional(Schema.Unknown) });

export const engineSweepTask = (dependencies: EngineDependencies): Task =>
  defineTask(Payload, dependencies.logger, async () => {
    const result = await sweepLive(dependencies);
    if (result.claimed > 0 || result.resumed > 0 || result.recovered > 0) {
      dependencies.logger.info(
        { claimed: result.claimed, recorded: result.recorded, resumed: result.resumed, recovered: result.recovered },
        "engine sweep",
      );
    }
    await enqueueEngineSweep(dependencies.db, result.nextRunAt.getTime() - dependencies.clock.now().getTime());
  });

/** Adds the sweep's job unless one is already waiting sooner (the worker's start-up). */
export const startEngineSweep = (db: Db): Promise<void> => enqueueEngineSweep(db, 0, true);
