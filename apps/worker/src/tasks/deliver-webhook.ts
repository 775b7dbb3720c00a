/**
 * `deliver_webhook`: one attempt of one webhook delivery (payload
 * `{ company_id, delivery_id }`, added by the outbox in the transaction of
 * the change, or by a retry, a replay or an ordered endpoint's wait). HTTP
 * failures are recorded and rescheduled by the task itself with `run_at`;
 * only infrastructure errors (database, a secret that does not open) are
 * thrown for graphile-worker to retry. A job spent by such errors is
 * counted as one failed attempt by the worker's periodic sweep
 * (`rescheduleSpentDeliveries`), so the delivery is never left pending for
 * good.
 */
import { DELIVER_WEBHOOK_TASK, type Db, findSpentDeliveryJobs, type SpentDeliveryJob } from "@dc/db";
import { makeWebhookSecretBox } from "@dc/crypto";
import { Schema } from "effect";
import type { Task } from "graphile-worker";
import type { Logger } from "pino";
import type { Clock } from "@dc/runtime";
import { defineTask } from "../define-task.ts";
import type { WorkerMetrics } from "../observability/metrics.ts";
import { settleSpentJobs } from "../spent-jobs.ts";
import { deliverWebhook, recordSpentDeliveryJob } from "../webhooks/deliver.ts";
import { DEFAULT_ATTEMPT_TIMEOUT_MS, type WebhookDeliverySettings } from "../webhooks/settings.ts";

/** The task's identifier in graphile-worker. */
export const DELIVER_WEBHOOK = DELIVER_WEBHOOK_TASK;

const Key = Schema.Number.pipe(Schema.int(), Schema.positive());

const DeliverWebhookPayload = Schema.Struct({ company_id: Key, delivery_id: Key });

export interface DeliverWebhookDependencies {
  readonly db: Db;
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

/**
 * Settles every pending delivery whose job is spent (`findSpentDeliveryJobs`):
 * its runs threw until graphile-worker gave up on it (the database failing
 * through its five attempts, a secret that does not open, a worker killed
 * during its last run). Each is counted as one failed attempt, in a
 * transaction of its own that deletes the spent job and schedules the next
 * attempt per the retry schedule, or fails the delivery when the schedule is
 * used up (docs/decisions/0455). Errors are logged, never thrown: the next
 * sweep tries again. Returns the deliveries settled.
 */
export const rescheduleSpentDeliveries = async (
  { db, clock, logger }: Pick<DeliverWebhookDependencies, "db" | "clock" | "logger">,
  settings: Pick<WebhookDeliverySettings, "random">,
): Promise<Array<number>> => {
  const settled = await settleSpentJobs<SpentDeliveryJob>({
    logger,
    task: DELIVER_WEBHOOK,
    find: () => findSpentDeliveryJobs(db),
    settle: async (job) =>
      (await recordSpentDeliveryJob(
        { db, clock, ...(settings.random === undefined ? {} : { random: settings.random }) },
        job,
      )) !== undefined,
    idOf: ({ deliveryId }) => ({ field: "deliveryId", id: deliveryId }),
    couldNotFind: "could not look for webhook deliveries with spent jobs",
    couldNotSettle: "could not settle a webhook delivery with a spent job",
  });
  if (settled.length > 0) {
    logger.warn({ task: DELIVER_WEBHOOK, deliveryIds: settled }, "webhook delivery jobs spent: each counted as a failed attempt");
  }
  return settled;
};
