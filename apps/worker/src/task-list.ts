/**
 * Every task this worker runs, given in code (never loaded from files) and
 * bound to its dependencies.
 */
import type { Db, EventIds } from "@dc/db";
import type { TaskList } from "graphile-worker";
import type { Logger } from "pino";
import type { Clock } from "@dc/runtime";
import type { WorkerMetrics } from "./observability/metrics.ts";
import type { RetentionSettings } from "./retention.ts";
import { APPLY_SNAPSHOT, applySnapshotTask } from "./tasks/apply-snapshot.ts";
import { PURGE_EXPIRED, purgeExpiredTask } from "./tasks/purge-expired.ts";
import { DELIVER_WEBHOOK, deliverWebhookTask } from "./tasks/deliver-webhook.ts";
import type { WebhookDeliverySettings } from "./webhooks/settings.ts";

/** What tasks may use: the database, the time, the log, the metrics, the id codec. */
export interface TaskDependencies {
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: WorkerMetrics;
  /** The public id codec (`makeIds(ID_ENCRYPTION_KEY)`): webhook payloads carry the ids the api returns. */
  readonly ids: EventIds;
  /** Webhook delivery; without it, `deliver_webhook` jobs wait for a worker that has it. */
  readonly webhooks?: WebhookDeliverySettings;
  /** What the hourly purge keeps; default `DEFAULT_RETENTION`. */
  readonly retention?: RetentionSettings;
}

/** Builds graphile-worker's task list. */
export const buildTaskList = (dependencies: TaskDependencies): TaskList => ({
  [APPLY_SNAPSHOT]: applySnapshotTask(dependencies),
  [PURGE_EXPIRED]: purgeExpiredTask(dependencies),
  ...(dependencies.webhooks === undefined
    ? {}
    : { [DELIVER_WEBHOOK]: deliverWebhookTask(dependencies, dependencies.webhooks) }),
});
