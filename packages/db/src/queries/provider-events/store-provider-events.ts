/**
 * Stores verified provider callbacks (docs/decisions/0630) and, in the same
 * statement, adds the company's `process_provider_events` job: one job key
 * per company, so a burst of callbacks coalesces into one run, and a
 * callback stored while that run works gets a run of its own after it
 * (graphile-worker keeps a locked job apart from a re-added key). A
 * callback already stored (a provider's retry, a replay) inserts nothing,
 * and adds no job when nothing new came. Call it inside the api's
 * transaction; it is one round trip.
 */
import { sql } from "kysely";
import { textArray } from "../array-literals.ts";
import type { Db } from "../executor.ts";

export const PROCESS_PROVIDER_EVENTS_TASK = "process_provider_events";

/** The job key of a company's provider-events job. */
export const providerEventsJobKey = (companyId: number): string => `provider-events:${companyId}`;

export interface ProviderEventInput {
  readonly eventKey: string;
  readonly payload: unknown;
}

/** How many of `events` were new; `company: false` when no such company exists (nothing stored). */
export const storeProviderEvents = async (
  db: Db,
  companyId: number,
  provider: "twilio" | "retell" | "lob",
  events: ReadonlyArray<ProviderEventInput>,
): Promise<{ readonly company: boolean; readonly stored: number }> => {
  const { rows } = await sql<{ company: boolean; stored: number }>`
    with known as (
      select 1 from companies where id = ${companyId}::int8
    ), stored as (
      insert into provider_events (company_id, provider, event_key, payload)
      select ${companyId}::int8, ${provider}::text, i.event_key, i.payload::jsonb
      from unnest(
        ${textArray(events.map((e) => e.eventKey))}::text[],
        ${textArray(events.map((e) => JSON.stringify(e.payload)))}::text[]
      ) as i (event_key, payload)
      where exists (select 1 from known)
      on conflict (company_id, provider, event_key) do nothing
      returning 1
    ), job as (
      select graphile_worker.add_job(
        ${PROCESS_PROVIDER_EVENTS_TASK}, json_build_object('companyId', ${companyId}::int8),
        job_key := ${providerEventsJobKey(companyId)}, max_attempts := 25
      )
      where exists (select 1 from stored)
    )
    select exists (select 1 from known) as company, (select count(*) from stored)::int as stored,
      (select count(*) from job)::int as jobs
  `.execute(db);
  return { company: rows[0]?.company ?? false, stored: rows[0]?.stored ?? 0 };
};

/**
 * Runs the company's provider-events job again `delayMs` from now: a run
 * that left events for followups whose send is still being recorded asks
 * for the next look this way (a waiting job of the key takes this time).
 */
export const enqueueProviderEvents = async (db: Db, companyId: number, delayMs: number): Promise<void> => {
  await sql`
    select graphile_worker.add_job(
      ${PROCESS_PROVIDER_EVENTS_TASK}, json_build_object('companyId', ${companyId}::int8),
      run_at := clock_timestamp() + make_interval(secs => ${Math.max(0, delayMs) / 1000}::float8),
      job_key := ${providerEventsJobKey(companyId)}, max_attempts := 25
    )`.execute(db);
};
