/**
 * Every task this worker runs, given in code (never loaded from files) and
 * bound to its dependencies.
 */
import type { DebtorLinkSigner } from "@dc/crypto";
import type { Db, EventIds } from "@dc/db";
import type { TaskList } from "graphile-worker";
import type { Logger } from "pino";
import type { Clock } from "@dc/runtime";
import type { WorkerMetrics } from "./observability/metrics.ts";
import type { RetentionSettings } from "./retention.ts";
import { APPLY_SNAPSHOT, applySnapshotTask } from "./tasks/apply-snapshot.ts";
import { PURGE_EXPIRED, purgeExpiredTask } from "./tasks/purge-expired.ts";
import { DELIVER_WEBHOOK, deliverWebhookTask } from "./tasks/deliver-webhook.ts";
import { ADVANCE_SANDBOX_CLOCK, advanceSandboxClockTask } from "./tasks/advance-sandbox-clock.ts";
import { ENGINE_SWEEP, engineSweepTask } from "./tasks/engine-sweep.ts";
import { PROCESS_PROVIDER_EVENTS, processProviderEventsTask } from "./tasks/process-provider-events.ts";
import type { ChannelAdapters } from "./channels/channel-adapter.ts";
import type { EngineSettings } from "./engine/engine-settings.ts";
import type { WebhookDeliverySettings } from "./webhooks/settings.ts";

/** What tasks may use: the database, the time, the log, the metrics, the id codec, the link signer. */
export interface TaskDependencies {
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: WorkerMetrics;
  /** The public id codec (`makeIds(ID_ENCRYPTION_KEY)`): webhook payloads carry the ids the api returns. */
  readonly ids: EventIds;
  /** Signs debtor page links (`PUBLIC_BASE_URL` or its stand-in, `ID_ENCRYPTION_KEY`): messages and debt.* payloads carry the api's links. */
  readonly links: DebtorLinkSigner;
  /** Webhook delivery; without it, `deliver_webhook` jobs wait for a worker that has it. */
  readonly webhooks?: WebhookDeliverySettings;
  /** What the hourly purge keeps; default `DEFAULT_RETENTION`. */
  readonly retention?: RetentionSettings;
  /** The collection engine; without it, `engine_sweep`, `advance_sandbox_clock` and `process_provider_events` jobs wait for a worker that has it. */
  readonly engine?: { readonly adapters: ChannelAdapters; readonly settings: EngineSettings };
}

/** Builds graphile-worker's task list. */
export const buildTaskList = (dependencies: TaskDependencies): TaskList => ({
  [APPLY_SNAPSHOT]: applySnapshotTask(dependencies),
  [PURGE_EXPIRED]: purgeExpiredTask(dependencies),
  ...(dependencies.webhooks === undefined
    ? {}
    : { [DELIVER_WEBHOOK]: deliverWebhookTask(dependencies, dependencies.webhooks) }),
  ...(dependencies.engine === undefined
    ? {}
    : (() => {
        const engine = {
          ...dependencies,
          adapters: dependencies.engine.adapters,
          engine: dependencies.engine.settings,
        };
        return {
          [ENGINE_SWEEP]: engineSweepTask(engine),
          [ADVANCE_SANDBOX_CLOCK]: advanceSandboxClockTask(engine),
          [PROCESS_PROVIDER_EVENTS]: processProviderEventsTask(engine),
        };
      })()),
});
