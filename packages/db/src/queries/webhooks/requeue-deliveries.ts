/**
 * Replays and endpoint disabling. A replay puts deliveries back to `pending`
 * with a fresh retry schedule and adds their jobs, in one statement: the
 * event keeps its id, so every new attempt carries the same `webhook-id`.
 * Disabling an endpoint settles its pending deliveries as `disabled` and
 * removes their waiting jobs.
 */
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { deliveryJobSpecs } from "./delivery-jobs.ts";

const requeue = async (trx: Kysely<Database>, targets: RawBuilder<unknown>): Promise<number> => {
  const { rows } = await sql<{ deliveries: number; jobs: number }>`
    with targets as (${targets}),
    specs as (
      select ${deliveryJobSpecs("t", "e")} as specs
      from targets t
      join webhook_endpoints e on e.company_id = t.company_id and e.id = t.endpoint_id
    ),
    jobs as (
      select job.id from specs, graphile_worker.add_jobs(specs.specs) as job where specs.specs is not null
    )
    select (select count(*) from targets)::int as deliveries, (select count(*) from jobs)::int as jobs`.execute(trx);
  const counts = rows[0] ?? { deliveries: 0, jobs: 0 };
  if (counts.jobs !== counts.deliveries) throw new Error(`requeued deliveries without jobs: ${counts.deliveries} vs ${counts.jobs}`);
  return counts.deliveries;
};

const reset = (now: Date) => sql`
  status = 'pending', retry_index = 0, next_attempt_at = null, completed_at = null, updated_at = ${now}::timestamptz`;

/**
 * Replays event `eventId` to every enabled endpoint that has a delivery of
 * it, or, with `endpointId`, to that endpoint only (creating the delivery if
 * the endpoint never had one, e.g. it was created after the event). A
 * delivery still pending is left as it is. Returns the deliveries queued.
 */
export const replayEvent = (
  trx: Kysely<Database>,
  replay: { readonly companyId: number; readonly eventId: number; readonly endpointId?: number; readonly now: Date },
): Promise<number> =>
  requeue(
    trx,
    replay.endpointId === undefined
      ? sql`
        update webhook_deliveries d set ${reset(replay.now)}
        from webhook_endpoints e
        where d.company_id = ${replay.companyId} and d.event_id = ${replay.eventId} and d.status <> 'pending'
          and e.company_id = d.company_id and e.id = d.endpoint_id and e.enabled
        returning d.id, d.company_id, d.endpoint_id, d.event_occurred_at`
      : sql`
        insert into webhook_deliveries as d (company_id, endpoint_id, event_id, event_occurred_at, created_at, updated_at)
        select ev.company_id, ${replay.endpointId}, ev.id, ev.occurred_at, ${replay.now}::timestamptz, ${replay.now}::timestamptz
        from webhook_events ev
        where ev.company_id = ${replay.companyId} and ev.id = ${replay.eventId}
        on conflict (company_id, endpoint_id, event_id) do update set ${reset(replay.now)}
          where d.status <> 'pending'
        returning d.id, d.company_id, d.endpoint_id, d.event_occurred_at`,
  );

/** Replays every failed or disabled delivery of an (enabled) endpoint. Returns the deliveries queued. */
export const replayFailedDeliveries = (
  trx: Kysely<Database>,
  replay: { readonly companyId: number; readonly endpointId: number; readonly now: Date },
): Promise<number> =>
  requeue(
    trx,
    sql`
      update webhook_deliveries d set ${reset(replay.now)}
      from webhook_endpoints e
      where d.company_id = ${replay.companyId} and d.endpoint_id = ${replay.endpointId}
        and d.status in ('failed', 'disabled')
        and e.company_id = d.company_id and e.id = d.endpoint_id and e.enabled
      returning d.id, d.company_id, d.endpoint_id, d.event_occurred_at`,
  );

/**
 * Settles every pending delivery of an endpoint as `disabled` and removes
 * the waiting jobs (a running one is left to finish and finds its delivery
 * settled). Call it in the transaction that disables the endpoint.
 */
export const disablePendingDeliveries = async (
  trx: Kysely<Database>,
  endpoint: { readonly companyId: number; readonly endpointId: number; readonly now: Date },
): Promise<number> => {
  const { rows } = await sql<{ disabled: number }>`
    with disabled as (
      update webhook_deliveries
      set status = 'disabled', next_attempt_at = null, completed_at = ${endpoint.now}::timestamptz, updated_at = ${endpoint.now}::timestamptz
      where company_id = ${endpoint.companyId} and endpoint_id = ${endpoint.endpointId} and status = 'pending'
      returning id
    ),
    removed as (
      select graphile_worker.remove_job('webhook_delivery:' || id) from disabled
    )
    select (select count(*) from disabled)::int as disabled, (select count(*) from removed)::int as removed`.execute(trx);
  return rows[0]?.disabled ?? 0;
};
