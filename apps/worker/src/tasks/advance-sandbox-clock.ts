/**
 * `advance_sandbox_clock`: moves a sandbox company's clock to `to`,
 * running everything that falls due on the way (engine/sandbox-clock.ts,
 * docs/decisions/0606). Payload `{companyId, to}` (`to` in ISO 8601); job
 * key `sandbox-clock:<companyId>`, so one company's advances run one after
 * another and a newer request replaces a waiting one. The api waits for
 * the company's clock to reach `to`.
 */
import { ADVANCE_SANDBOX_CLOCK_TASK } from "@dc/db";
import { Schema } from "effect";
import type { Task } from "graphile-worker";
import { defineTask } from "../define-task.ts";
import type { EngineDependencies } from "../engine/engine-dependencies.ts";
import { advanceSandbox } from "../engine/sandbox-clock.ts";

export const ADVANCE_SANDBOX_CLOCK = ADVANCE_SANDBOX_CLOCK_TASK;

const Payload = Schema.Struct({
  companyId: Schema.Int.pipe(Schema.positive()),
  to: Schema.DateFromString.pipe(Schema.filter((date) => !Number.isNaN(date.getTime()) || "must be an ISO 8601 time")),
});

export const advanceSandboxClockTask = (dependencies: EngineDependencies): Task =>
  defineTask(Payload, dependencies.logger, async ({ companyId, to }) => {
    const result = await advanceSandbox(dependencies, companyId, to);
    if (result.now === undefined) {
      dependencies.logger.warn(
        { companyId },
        "advance_sandbox_clock for a company that is not a sandbox: nothing done",
      );
      return;
    }
    dependencies.logger.info(
      { companyId, now: result.now.toISOString(), steps: result.steps, claimed: result.claimed },
      "sandbox clock advanced",
    );
  });
