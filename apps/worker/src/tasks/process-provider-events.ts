/**
 * `process_provider_events`: applies a company's stored provider callbacks
 * (provider-events/apply-provider-events.ts, docs/decisions/0630). Payload
 * `{companyId}`; job key `provider-events:<companyId>`, added by the api
 * with each new callback, so a burst coalesces into one run.
 */
import { PROCESS_PROVIDER_EVENTS_TASK } from "@dc/db";
import { Schema } from "effect";
import type { Task } from "graphile-worker";
import { defineTask } from "../define-task.ts";
import type { EngineDependencies } from "../engine/engine-dependencies.ts";
import { applyProviderEvents } from "../provider-events/apply-provider-events.ts";

export const PROCESS_PROVIDER_EVENTS = PROCESS_PROVIDER_EVENTS_TASK;

const Payload = Schema.Struct({ companyId: Schema.Int.pipe(Schema.positive()) });

export const processProviderEventsTask = (dependencies: EngineDependencies): Task =>
  defineTask(Payload, dependencies.logger, async ({ companyId }) => {
    const result = await applyProviderEvents(dependencies, companyId);
    if (result.applied > 0 || result.waiting > 0)
      dependencies.logger.info({ companyId, ...result }, "provider events applied");
  });
