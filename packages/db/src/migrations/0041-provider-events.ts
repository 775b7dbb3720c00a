/**
 * The providers' callback inbox (docs/decisions/0630): the api stores each
 * verified callback here, once per `(company_id, provider, event_key)` so a
 * replayed or duplicated callback is stored once, and the worker's
 * `process_provider_events` applies the company's unprocessed ones in
 * batches. Followups are found by the provider's message id (a delivery
 * update) and by the number a message went to (a reply), hence their two
 * indexes.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    create table provider_events (
      company_id bigint not null references companies (id) on delete cascade,
      id bigint generated always as identity,
      provider text not null check (provider in ('twilio', 'retell', 'lob')),
      event_key text not null check (length(event_key) between 1 and 500),
      followup_id bigint,
      payload jsonb not null,
      received_at timestamptz not null default now(),
      processed_at timestamptz,
      primary key (company_id, id),
      unique (company_id, provider, event_key),
      foreign key (company_id, followup_id) references followups (company_id, id) on delete set null (followup_id)
    )
  `.execute(db);
  await sql`
    create index provider_events_unprocessed_idx on provider_events (company_id, id) where processed_at is null
  `.execute(db);
  await sql`
    create index provider_events_followup_idx on provider_events (company_id, followup_id) where followup_id is not null
  `.execute(db);
  await sql`
    create index followups_provider_message_idx on followups (company_id, provider_message_id)
      where provider_message_id is not null
  `.execute(db);
  await sql`
    create index followups_recipient_idx on followups (company_id, recipient, call_date)
      where recipient is not null
  `.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop index if exists followups_recipient_idx`.execute(db);
  await sql`drop index if exists followups_provider_message_idx`.execute(db);
  await sql`drop table if exists provider_events`.execute(db);
};
