/**
 * The retention purge of webhook events, one bounded batch per call
 * (docs/decisions/0021): events past their retention, with their deliveries
 * and attempts. Each batch is its own short transaction and skips rows
 * another transaction holds, so the purge never waits on, nor holds up, the
 * api or a delivery.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { integerArray } from "../array-literals.ts";

/** What one webhook batch deleted. */
export interface PurgedWebhookEvents {
  /** Events examined and locked by the batch (at most its limit): fewer means nothing older is left. */
  readonly examined: number;
  readonly events: number;
  readonly deliveries: number;
  readonly attempts: number;
}

/**
 * The events a batch takes: created before `cutoff`, none of their deliveries
 * `pending`, locked `for update skip locked`, all of one company (DESIGN.md
 * 6: no transaction spans two companies), the first found with such an
 * event among those not in `excluded`. Run it through `withPurgeablePlan`.
 */
export const purgeableEvents = (batch: {
  readonly cutoff: Date;
  readonly limit: number;
  readonly excluded?: ReadonlyArray<number>;
}) => {
  const cutoff = sql`${batch.cutoff.toISOString()}::timestamptz`;
  const purgeable = sql`e.created_at < ${cutoff}
    and not exists (
      select 1 from webhook_deliveries d
      where d.company_id = e.company_id and d.event_id = e.id and d.status = 'pending')`;
  return sql<{ id: string; company_id: string }>`
  with company as (
    select e.company_id from webhook_events e
    where ${purgeable} and e.company_id <> all (${integerArray(batch.excluded ?? [])}::int8[])
    limit 1
    for update of e skip locked
  )
  select e.id, e.company_id from webhook_events e
  where e.company_id = (select company_id from company) and ${purgeable}
  limit ${batch.limit}
  for update of e skip locked`;
};

/**
 * Runs `work` (the `purgeableEvents` statement, or its EXPLAIN) with nested
 * loops off, so the pending check is a hash anti-join whatever the
 * statistics say. Planned as a nested loop, with statistics from before an
 * outage piled up pending deliveries, it compared every examined event with
 * every pending delivery (2,000 x 20,000 comparisons: seconds per batch, the
 * events held meanwhile). Only this statement: the deletes keep their
 * nested loops over the deliveries' index.
 */
export const withPurgeablePlan = async <T>(trx: Kysely<Database>, work: () => Promise<T>): Promise<T> => {
  await sql`set local enable_nestloop = off`.execute(trx);
  const result = await work();
  await sql`reset enable_nestloop`.execute(trx);
  return result;
};

/** One company's part of a batch, in a transaction of its own; `company` is undefined when none was left. */
const purgeCompanyWebhookEvents = (
  db: Kysely<Database>,
  batch: { readonly cutoff: Date; readonly limit: number; readonly excluded: ReadonlyArray<number> },
): Promise<PurgedWebhookEvents & { readonly company: number | undefined }> =>
  db.transaction().execute(async (trx) => {
    const { rows: doomed } = await withPurgeablePlan(trx, () => purgeableEvents(batch).execute(trx));
    const company = doomed[0] === undefined ? undefined : Number(doomed[0].company_id);
    if (company === undefined) return { company, examined: 0, events: 0, deliveries: 0, attempts: 0 };
    const ids = integerArray(doomed.map((row) => Number(row.id)));
    const { rows } = await sql<{ deliveries: number; attempts: number }>`
      with locked as (
        -- A delivery another transaction holds (a replay putting it back to pending, an attempt being
        -- recorded) is skipped, never waited for: waiting deadlocked with a replay that locks the batch's
        -- deliveries in another order. Its event keeps it and goes on a later run.
        select d.id from webhook_deliveries d
        where d.company_id = ${company} and d.event_id = any (${ids}::int8[]) and d.status <> 'pending'
        for update of d skip locked
      ), deliveries as (
        delete from webhook_deliveries d using locked where d.company_id = ${company} and d.id = locked.id
        returning d.id, d.company_id
      )
      select
        (select count(*) from deliveries)::int4 as deliveries,
        (select count(*) from webhook_delivery_attempts a
          join deliveries d on a.company_id = d.company_id and a.delivery_id = d.id)::int4 as attempts
    `.execute(trx);
    const { deliveries, attempts } = rows[0] ?? { deliveries: 0, attempts: 0 };
    const events = await sql`
      delete from webhook_events e
      where e.company_id = ${company} and e.id = any (${ids}::int8[])
        and not exists (select 1 from webhook_deliveries d where d.company_id = e.company_id and d.event_id = e.id)
    `.execute(trx);
    return { company, examined: doomed.length, events: Number(events.numAffectedRows ?? 0n), deliveries, attempts };
  });

/**
 * Deletes up to `limit` webhook events created before `cutoff`, each with
 * its deliveries and their attempts, unless a delivery of it is `pending`
 * (waiting for an attempt: the event stays until that delivery settles).
 *
 * One transaction per company (DESIGN.md 6), each of three statements: the
 * first locks the company's events; then, because a replay may put a
 * settled delivery back to `pending` meanwhile, the second deletes their
 * settled deliveries (a delivery replayed before it is left alone; one
 * replayed after it finds nothing; one another transaction holds is
 * skipped) and the third the events left with no delivery at all. A replay
 * naming one endpoint reads its event `for key share` and waits for the
 * company's transaction to commit or skip it. Each company is visited once
 * per call, so one whose events are all held does not end the call early.
 */
export const purgeWebhookEventsBatch = async (
  db: Kysely<Database>,
  batch: { readonly cutoff: Date; readonly limit: number },
): Promise<PurgedWebhookEvents> => {
  const total = { examined: 0, events: 0, deliveries: 0, attempts: 0 };
  const visited: Array<number> = [];
  while (total.examined < batch.limit) {
    const { company, ...purged } = await purgeCompanyWebhookEvents(db, {
      cutoff: batch.cutoff,
      limit: batch.limit - total.examined,
      excluded: visited,
    });
    if (company === undefined) break;
    visited.push(company);
    total.examined += purged.examined;
    total.events += purged.events;
    total.deliveries += purged.deliveries;
    total.attempts += purged.attempts;
  }
  return total;
};
