/**
 * One run of a delivery job: make one HTTP attempt of a pending delivery and
 * record it (docs/decisions/0455). The attempt is made outside any
 * transaction; its record, the delivery's new state and the next job (a
 * retry at the scheduled time: never a sleep) are written in one
 * transaction afterwards. A 2xx succeeds; 410 Gone fails the delivery and
 * disables the endpoint; anything else is retried per the schedule until it
 * is exhausted. An ordered endpoint delivers its oldest pending event first:
 * a later one waits (its job is moved after the head's next attempt).
 * A job spent by runs that threw is counted as one failed attempt by the
 * worker's sweep (`recordSpentDeliveryJob`).
 */
import {
  completeSpentJob,
  type Db,
  disableGoneEndpoint,
  findHeadOfLine,
  insertAttempt,
  type LoadedDelivery,
  loadDelivery,
  postponeDelivery,
  recordAttemptOutcome,
  disablePendingDeliveries,
  scheduleDeliveryJob,
  type SpentDeliveryJob,
} from "@dc/db";
import {
  type DestinationPolicy,
  hostAddresses,
  type HostResolver,
  privateDestinationResolver,
  resolverWithDeadline,
  systemResolver,
  vetDestination,
} from "@dc/ssrf";
import type { WebhookSecretBox } from "@dc/crypto";
import type { Logger } from "pino";
import type { Clock } from "@dc/runtime";
import { parseRetryAfter, retryDelayMs } from "./retry-schedule.ts";
import { type SendResult, sendWebhook } from "./send.ts";
import { WEBHOOK_USER_AGENT } from "./settings.ts";
import { signatureHeader } from "./signature.ts";

export interface DeliveryDependencies {
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly secrets: WebhookSecretBox;
  readonly policy: DestinationPolicy;
  readonly timeoutMs: number;
  /**
   * Resolves endpoint host names, in both modes; by default `systemResolver`
   * (DNS only) when private destinations are refused, `privateDestinationResolver`
   * (localhost, the hosts file, then DNS) when they are allowed.
   */
  readonly resolve?: HostResolver;
  readonly random?: () => number;
}

export type DeliveryOutcome = "succeeded" | "retry_scheduled" | "failed" | "endpoint_gone" | "waiting_for_earlier_event" | "skipped";

export interface DeliveryReport {
  readonly outcome: DeliveryOutcome;
  readonly statusCode?: number | null;
  /** For `retry_scheduled` and `waiting_for_earlier_event`: when the job runs again. */
  readonly nextAttemptAt?: Date;
}

type Delivery = LoadedDelivery;

/**
 * How long a later event of an ordered endpoint waits when the head of the
 * line is due now rather than at a future attempt: its job should run first,
 * and if it cannot (a job spent, until the worker's sweep reschedules it), the
 * later event looks again a second later instead of a millisecond later, over
 * and over (docs/decisions/0455).
 */
export const HEAD_DUE_RECHECK_MS = 1_000;

/** The oldest pending delivery of the endpoint before this one, by event time then event id. */
const headOfLine = (db: Db, companyId: number, delivery: Delivery) =>
  findHeadOfLine(db, {
    companyId,
    endpointId: delivery.endpoint_id,
    eventOccurredAt: delivery.event_occurred_at,
    eventId: delivery.event_id,
  });

/** The resolver of the worker when private destinations are allowed: localhost, the hosts file, then DNS. */
const systemPrivateResolver = privateDestinationResolver();

const attempt = async (deps: DeliveryDependencies, companyId: number, delivery: Delivery, now: Date): Promise<SendResult> => {
  // Name resolution gets the same deadline as the request that follows it.
  const resolve = resolverWithDeadline(deps.resolve ?? (deps.policy.allowPrivateDestinations ? systemPrivateResolver : systemResolver), deps.timeoutMs);
  const vetted = await vetDestination(delivery.url, deps.policy, resolve);
  if (!vetted.ok) {
    // The attempt's error is shown to the company; what DNS answered stays in the logs.
    if (vetted.detail !== undefined) deps.logger.warn({ deliveryId: delivery.id, detail: vetted.detail }, "webhook destination refused");
    return { statusCode: null, headers: {}, bodyExcerpt: null, error: `refused: ${vetted.reason}`, durationMs: 0 };
  }
  let addresses = vetted.addresses;
  if (addresses === undefined) {
    // Private destinations allowed: nothing is vetted, but the name is still resolved here, off libuv's thread pool
    // (never by node:http's default `dns.lookup`), and the request pinned to what it gave (docs/decisions/0454).
    try {
      addresses = await hostAddresses(vetted.url, resolve);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      deps.logger.warn({ deliveryId: delivery.id, detail }, "webhook host not resolved");
      return { statusCode: null, headers: {}, bodyExcerpt: null, error: `request failed: host ${vetted.url.hostname} could not be resolved`, durationMs: 0 };
    }
  }
  const keys = [deps.secrets.open(companyId, delivery.secret_ciphertext)];
  if (delivery.previous_secret_ciphertext !== null && delivery.previous_secret_expires_at !== null && delivery.previous_secret_expires_at > now) {
    keys.push(deps.secrets.open(companyId, delivery.previous_secret_ciphertext));
  }
  const timestamp = Math.floor(now.getTime() / 1000);
  const signature = signatureHeader(keys, delivery.public_id, timestamp, delivery.payload);
  for (const key of keys) key.fill(0);
  return sendWebhook({
    url: vetted.url,
    addresses,
    headers: {
      "content-type": "application/json",
      "user-agent": WEBHOOK_USER_AGENT,
      "webhook-id": delivery.public_id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signature,
    },
    body: delivery.payload,
    timeoutMs: deps.timeoutMs,
  });
};

const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300;

/**
 * Records attempt `result` of `delivery` in `trx`: its attempts row, the
 * delivery's new state and, for a failure with retries left, the job of the
 * next attempt at its scheduled time (410 also disables the endpoint).
 * Applies only if the delivery is still pending at the retry index it was
 * read with.
 */
const recordAttempt = async (
  trx: Db,
  deps: Pick<DeliveryDependencies, "random">,
  companyId: number,
  delivery: Pick<Delivery, "id" | "endpoint_id" | "ordered" | "retry_index">,
  now: Date,
  result: SendResult,
): Promise<{ readonly outcome: DeliveryOutcome; readonly nextAttemptAt: Date | null }> => {
  const deliveryId = delivery.id;
  const gone = result.statusCode === 410;
  const succeeded = isSuccess(result.statusCode);
  const delay = succeeded || gone ? undefined : retryDelayMs(delivery.retry_index, deps.random ?? Math.random, parseRetryAfter(asHeader(result.headers["retry-after"]), now));
  const nextAttemptAt = delay === undefined ? null : new Date(now.getTime() + delay);
  const status = succeeded ? "succeeded" : nextAttemptAt !== null ? "pending" : "failed";
  const outcome: DeliveryOutcome = succeeded ? "succeeded" : gone ? "endpoint_gone" : nextAttemptAt !== null ? "retry_scheduled" : "failed";
  await insertAttempt(trx, { companyId, deliveryId, now, result });
  const updated = await recordAttemptOutcome(trx, {
    companyId,
    deliveryId,
    retryIndex: delivery.retry_index,
    statusCode: result.statusCode,
    status,
    nextAttemptAt,
    now,
  });
  const stillOurs = updated === status;
  if (gone && stillOurs) {
    await disableGoneEndpoint(trx, companyId, delivery.endpoint_id, now);
    await disablePendingDeliveries(trx, { companyId, endpointId: delivery.endpoint_id, now });
  }
  if (nextAttemptAt !== null && stillOurs) {
    await scheduleDeliveryJob(trx, { companyId, deliveryId, endpointId: delivery.endpoint_id, ordered: delivery.ordered, runAt: nextAttemptAt });
  }
  return { outcome, nextAttemptAt };
};

/** Runs one attempt of delivery `deliveryId` of `companyId`, if it is still pending. */
export const deliverWebhook = async (
  deps: DeliveryDependencies,
  { companyId, deliveryId }: { readonly companyId: number; readonly deliveryId: number },
): Promise<DeliveryReport> => {
  const { db, clock } = deps;
  const delivery = await loadDelivery(db, companyId, deliveryId);
  if (delivery === undefined || delivery.status !== "pending") return { outcome: "skipped" };
  const now = clock.now();
  if (!delivery.enabled) {
    await disablePendingDeliveries(db, { companyId, endpointId: delivery.endpoint_id, now });
    return { outcome: "skipped" };
  }
  if (delivery.ordered) {
    const head = await headOfLine(db, companyId, delivery);
    if (head !== undefined) {
      // Just after the head's next attempt: the queue then runs the head first. A head due now is rechecked a second later.
      const headDue = head.next_attempt_at?.getTime() ?? 0;
      const runAt = new Date(headDue > now.getTime() ? headDue + 1 : now.getTime() + HEAD_DUE_RECHECK_MS);
      await db.transaction().execute(async (trx) => {
        await postponeDelivery(trx, { companyId, deliveryId, runAt, now });
        await scheduleDeliveryJob(trx, { companyId, deliveryId, endpointId: delivery.endpoint_id, ordered: true, runAt });
      });
      return { outcome: "waiting_for_earlier_event", nextAttemptAt: runAt };
    }
  }

  const result = await attempt(deps, companyId, delivery, now);
  const { outcome, nextAttemptAt } = await db.transaction().execute((trx) => recordAttempt(trx, deps, companyId, delivery, now, result));
  deps.logger.info(
    {
      deliveryId,
      endpointId: delivery.endpoint_id,
      eventId: delivery.public_id,
      eventType: delivery.type,
      attempt: delivery.attempt_count + 1,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
      outcome,
      nextAttemptAt,
    },
    "webhook attempt",
  );
  return { outcome, statusCode: result.statusCode, ...(nextAttemptAt === null ? {} : { nextAttemptAt }) };
};

/**
 * The error recorded for a delivery job spent by runs that threw
 * (infrastructure failures): whether they reached the receiver is unknown,
 * and what failed is for the worker's log, not the company's history.
 */
const SPENT_JOB_ATTEMPT_ERROR = "internal error: the attempt could not be completed";

/**
 * Settles spent job `jobId` of pending delivery `deliveryId` (its runs threw
 * until graphile-worker stopped retrying it: nothing would ever run the
 * delivery again, and a replay leaves pending deliveries alone). In one
 * transaction: deletes the job if it is still spent and records one failed
 * attempt without status (`SPENT_JOB_ATTEMPT_ERROR`), so the retry schedule
 * goes on, with its job, or the delivery is `failed` when the schedule is
 * used up (replayable then). Returns the outcome, or undefined when the job
 * or the delivery has moved on meanwhile.
 */
export const recordSpentDeliveryJob = async (
  deps: Pick<DeliveryDependencies, "db" | "clock" | "random">,
  { companyId, deliveryId, jobId }: SpentDeliveryJob,
): Promise<DeliveryOutcome | undefined> => {
  const delivery = await loadDelivery(deps.db, companyId, deliveryId);
  if (delivery === undefined || delivery.status !== "pending") return undefined;
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    if (!(await completeSpentJob(trx, jobId))) return undefined;
    if (!delivery.enabled) {
      await disablePendingDeliveries(trx, { companyId, endpointId: delivery.endpoint_id, now });
      return "skipped";
    }
    const spent: SendResult = { statusCode: null, headers: {}, bodyExcerpt: null, error: SPENT_JOB_ATTEMPT_ERROR, durationMs: 0 };
    return (await recordAttempt(trx, deps, companyId, delivery, now, spent)).outcome;
  });
};

const asHeader = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);
