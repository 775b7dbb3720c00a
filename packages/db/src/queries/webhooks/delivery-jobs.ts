/**
 * The graphile-worker jobs that deliver webhooks: one job per delivery, keyed
 * by the delivery (so a delivery never has two waiting jobs), in a named
 * queue per endpoint when the endpoint asks for ordered delivery (so its
 * deliveries run one at a time, the oldest event first: an ordered job's
 * `run_at` is its event's time, or now when that is later). Jobs are added
 * with SQL in the caller's transaction: a rolled-back change leaves no job,
 * a committed one always has its job.
 */
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database } from "../../schema.ts";

/** The task that delivers one webhook (payload `{ company_id, delivery_id }`). */
export const DELIVER_WEBHOOK_TASK = "deliver_webhook";

/** graphile-worker retries a delivery job only on infrastructure errors (HTTP failures are scheduled by the task). */
export const DELIVER_WEBHOOK_MAX_ATTEMPTS = 5;

export const webhookDeliveryJobKey = (deliveryId: number): string => `webhook_delivery:${deliveryId}`;

export const webhookEndpointQueueName = (endpointId: number): string => `webhooks:endpoint:${endpointId}`;

/**
 * `array_agg` of the job specs for the deliveries of relation `d` (columns
 * `id`, `company_id`, `event_occurred_at`) joined to their endpoint `e`
 * (columns `id`, `ordered`). Feed it to `graphile_worker.add_jobs`.
 */
export const deliveryJobSpecs = (deliveries: string, endpoints: string): RawBuilder<unknown> => {
  const d = sql.ref(deliveries);
  const e = sql.ref(endpoints);
  return sql`array_agg(row(
    ${DELIVER_WEBHOOK_TASK}::text,
    json_build_object('company_id', ${d}.company_id, 'delivery_id', ${d}.id),
    case when ${e}.ordered then 'webhooks:endpoint:' || ${e}.id end,
    case when ${e}.ordered then least(${d}.event_occurred_at, now()) end,
    ${DELIVER_WEBHOOK_MAX_ATTEMPTS}::int,
    'webhook_delivery:' || ${d}.id,
    null::int,
    null::text[]
  )::graphile_worker.job_spec order by ${d}.event_occurred_at, ${d}.id)`;
};

/**
 * Schedules the next run of a delivery's job at `runAt` (a retry, or an
 * ordered delivery waiting for the head of its line). Replaces the waiting
 * job of the same key; from inside the running job, graphile-worker clears
 * the running job's key and adds a new one.
 */
export const scheduleDeliveryJob = async (
  db: Kysely<Database>,
  job: { readonly companyId: number; readonly deliveryId: number; readonly endpointId: number; readonly ordered: boolean; readonly runAt: Date },
): Promise<void> => {
  await sql`
    select graphile_worker.add_job(
      ${DELIVER_WEBHOOK_TASK}::text,
      json_build_object('company_id', ${job.companyId}::bigint, 'delivery_id', ${job.deliveryId}::bigint),
      queue_name := ${job.ordered ? webhookEndpointQueueName(job.endpointId) : null}::text,
      run_at := ${job.runAt}::timestamptz,
      max_attempts := ${DELIVER_WEBHOOK_MAX_ATTEMPTS}::int,
      job_key := ${webhookDeliveryJobKey(job.deliveryId)}::text
    )`.execute(db);
};

/** A pending delivery and its spent job. */
export interface SpentDeliveryJob {
  readonly companyId: number;
  readonly deliveryId: number;
  /** graphile-worker's job id (a bigint, as text). */
  readonly jobId: string;
}

/**
 * Up to `limit` pending deliveries whose job is spent: it threw on every one
 * of its attempts and is not running, so graphile-worker will not run it
 * again and, without the worker's sweep, the delivery would stay pending for
 * good. Only a job still holding the delivery's key (a job whose key moved to
 * a newer one is not the delivery's any more). Oldest job first. Each
 * delivery is read by its key, the company taken from the job's payload
 * (every delivery job has carried it) and the id from the job's key
 * (docs/decisions/0023); graphile-worker's `jobs` view does not show the
 * payload, so the table under it is read.
 */
export const findSpentDeliveryJobs = async (db: Kysely<Database>, limit = 100): Promise<Array<SpentDeliveryJob>> => {
  const { rows } = await sql<{ company_id: number; delivery_id: number; job_id: string }>`
    with spent as (
      select j.id, substring(j.key from '^webhook_delivery:([0-9]{1,18})$')::int8 as delivery_id,
        substring(j.payload ->> 'company_id' from '^([0-9]{1,18})$')::int8 as company_id
      from graphile_worker._private_jobs j
      join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = ${DELIVER_WEBHOOK_TASK} and j.attempts >= j.max_attempts and j.locked_at is null
    )
    select d.company_id, d.id as delivery_id, spent.id::text as job_id
    from spent
    join webhook_deliveries d on d.company_id = spent.company_id and d.id = spent.delivery_id
    where d.status = 'pending'
    order by spent.id
    limit ${limit}
  `.execute(db);
  return rows.map((row) => ({ companyId: row.company_id, deliveryId: row.delivery_id, jobId: row.job_id }));
};
