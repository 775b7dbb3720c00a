/**
 * `deliver_webhook`: one attempt of one webhook delivery (payload
 * `{ company_id, delivery_id }`, added by the outbox in the transaction of
 * the change, or by a retry, a replay or an ordered endpoint's wait). HTTP
 * failures are recorded and rescheduled by the task itself with `run_at`;
 * only infrastructure errors (database, a secret that does not open) are
 * thrown for graphile-worker to retry.
 */
import { DELIVER_WEBHOOK_TASK, type Database, makeWebhookSecretBox } from "@dc/db";
import { Schema } from "effect";
import type { Task } from "graphile-worker";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import { defineTask } from "../define-task.ts";
import type { WorkerMetrics } from "../observability/metrics.ts";
import { deliverWebhook } from "../webhooks/deliver.ts";
import { DEFAULT_ATTEMPT_TIMEOUT_MS, type WebhookDeliverySettings } from "../webhooks/settings.ts";

/** The task's identifier in graphile-worker. */
export const DELIVER_WEBHOOK = DELIVER_WEBHOOK_TASK;

const Key = Schema.Number.pipe(Schema.int(), Schema.positive());

export const DeliverWebhookPayload = Schema.Struct({ company_id: Key, delivery_id: Key });

export interface DeliverWebhookDependencies {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Counts each run's delivery outcome; a run that throws is counted by the job metrics instead. */
  readonly metrics: WorkerMetrics;
}

/** The `deliver_webhook` task. */
export const deliverWebhookTask = ({ db, clock, logger, metrics }: DeliverWebhookDependencies, settings: WebhookDeliverySettings): Task => {
  const secrets = makeWebhookSecretBox(settings.idEncryptionKey);
  const log = logger.child({ task: DELIVER_WEBHOOK });
  return defineTask(DeliverWebhookPayload, logger, async ({ company_id: companyId, delivery_id: deliveryId }, helpers) => {
    const report = await deliverWebhook(
      {
        db,
        clock,
        logger: log.child({ jobId: helpers.job.id }),
        secrets,
        policy: { allowPrivateDestinations: settings.allowPrivateDestinations },
        timeoutMs: settings.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS,
        ...(settings.resolve === undefined ? {} : { resolve: settings.resolve }),
        ...(settings.random === undefined ? {} : { random: settings.random }),
      },
      { companyId, deliveryId },
    );
    metrics.countWebhookDelivery(report.outcome);
  });
};
