/**
 * The webhook outbox. `recordEvent` and `recordEvents` write events, their
 * pending deliveries (one per enabled endpoint of the company subscribed to
 * the type) and the delivery jobs in ONE statement, which must run in the
 * transaction of the change that causes the events: committed together, a
 * crash can lose no event; rolled back together, no event is invented.
 * An event no endpoint subscribes to is not stored (docs/decisions/0452).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { integerArray, textArray } from "../array-literals.ts";
import { deliveryJobSpecs } from "./delivery-jobs.ts";
import { isWebhookEventType, type WebhookEventType } from "./event-types.ts";

export interface WebhookEventInput {
  readonly companyId: number;
  readonly type: WebhookEventType;
  /**
   * The event's `data`: the public shape of the resource, as JSON (encrypted
   * ids already encoded, dates already formatted). See event-data/*.ts and
   * the OpenAPI document's `webhooks` section.
   */
  readonly data: unknown;
  /** When the change happened (the clock of the change's transaction). */
  readonly occurredAt: Date;
}

export interface RecordedEvents {
  /** Events stored (those with at least one subscribed endpoint). */
  readonly events: number;
  /** Pending deliveries created, each with its job. */
  readonly deliveries: number;
}

/** What an endpoint receives, before serialization: `{type, timestamp, data}` (Standard Webhooks' payload structure). */
const bodyOf = (event: Pick<WebhookEventInput, "type" | "data" | "occurredAt">) => ({
  type: event.type,
  timestamp: event.occurredAt.toISOString(),
  data: event.data,
});

/** The exact body sent to endpoints: `{type, timestamp, data}` (Standard Webhooks' payload structure). */
export const webhookBody = (event: Pick<WebhookEventInput, "type" | "data" | "occurredAt">): string => {
  const body = JSON.stringify(bodyOf(event));
  if (typeof body !== "string") throw new TypeError("webhook event data must be JSON");
  return body;
};

const check = (event: WebhookEventInput): void => {
  if (!Number.isSafeInteger(event.companyId) || event.companyId <= 0) throw new RangeError(`not a company id: ${event.companyId}`);
  if (!isWebhookEventType(event.type)) throw new RangeError(`not a webhook event type: ${String(event.type)}`);
  if (Number.isNaN(event.occurredAt.getTime())) throw new RangeError("occurredAt is not a valid date");
};

/**
 * Records many events with one statement, however many (the snapshot worker
 * records one per debt it creates or settles). Pass the transaction of the
 * change, never the pool.
 *
 * @example
 * await db.transaction().execute(async (trx) => {
 *   const created = await insertDebt(trx, ...);
 *   await recordEvents(trx, [{ companyId, type: "debt.created", data: debtJson, occurredAt: now }]);
 * });
 */
export const recordEvents = async (trx: Kysely<Database>, events: ReadonlyArray<WebhookEventInput>): Promise<RecordedEvents> => {
  if (events.length === 0) return { events: 0, deliveries: 0 };
  for (const event of events) check(event);
  // The bodies travel as ONE JSON array, each element's text being `webhookBody` of its event
  // (PostgreSQL's json keeps every element's text as written). As a text[] parameter, node-postgres
  // escaped 42,000 bodies in ~740 ms and PostgreSQL parsed the literal in as long again.
  const bodies = JSON.stringify(events.map(bodyOf));
  const { rows } = await sql<{ events: number; deliveries: number; jobs: number }>`
    with input as (
      select i.company_id, i.type, i.payload::text as payload, i.occurred_at, i.position
      from rows from (
        unnest(${integerArray(events.map((event) => event.companyId))}::bigint[]),
        unnest(${textArray(events.map((event) => event.type))}::text[]),
        json_array_elements(${bodies}::json),
        unnest(${textArray(events.map((event) => event.occurredAt.toISOString()))}::timestamptz[])
      ) with ordinality as i (company_id, type, payload, occurred_at, position)
    ),
    subscribed as (
      select i.*
      from input i
      where exists (
        select 1 from webhook_endpoints e
        where e.company_id = i.company_id and e.enabled
          and (cardinality(e.event_types) = 0 or i.type = any (e.event_types))
      )
    ),
    events as (
      insert into webhook_events (company_id, public_id, type, payload, occurred_at)
      select company_id, 'evt_' || replace(time_ordered_uuid()::text, '-', ''), type, payload, occurred_at
      from subscribed
      order by position
      returning id, company_id, type, occurred_at
    ),
    deliveries as (
      insert into webhook_deliveries (company_id, endpoint_id, event_id, event_occurred_at)
      select ev.company_id, e.id, ev.id, ev.occurred_at
      from events ev
      join webhook_endpoints e
        on e.company_id = ev.company_id and e.enabled
        and (cardinality(e.event_types) = 0 or ev.type = any (e.event_types))
      order by ev.id, e.id
      returning id, company_id, endpoint_id, event_occurred_at
    ),
    specs as (
      select ${deliveryJobSpecs("d", "e")} as specs
      from deliveries d
      join webhook_endpoints e on e.company_id = d.company_id and e.id = d.endpoint_id
    ),
    jobs as (
      select job.id
      from specs, graphile_worker.add_jobs(specs.specs) as job
      where specs.specs is not null
    )
    select
      (select count(*) from events)::int as events,
      (select count(*) from deliveries)::int as deliveries,
      (select count(*) from jobs)::int as jobs`.execute(trx);
  const counts = rows[0] ?? { events: 0, deliveries: 0, jobs: 0 };
  if (counts.jobs !== counts.deliveries) throw new Error(`webhook deliveries without jobs: ${counts.deliveries} deliveries, ${counts.jobs} jobs`);
  return { events: counts.events, deliveries: counts.deliveries };
};

/** Records one event: `recordEvents` with a single event. Same rule: inside the change's transaction. */
export const recordEvent = (trx: Kysely<Database>, event: WebhookEventInput): Promise<RecordedEvents> => recordEvents(trx, [event]);
