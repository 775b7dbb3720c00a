/**
 * Webhooks (docs/decisions/0450-0456): the endpoints a company registers,
 * the outbox of events (written in the transaction of the change that causes
 * them), one delivery per (endpoint, event), and every HTTP attempt of a
 * delivery. Every table carries `company_id` and every index starts with it.
 * Signing secrets are stored only encrypted (AES-256-GCM, decision 0451);
 * `payload` keeps the exact body bytes, so every attempt and every replay
 * signs and sends the same bytes.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
create table webhook_endpoints (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  url text not null check (length(url) between 1 and 2048),
  description text check (description is null or length(description) <= 500),
  event_types text[] not null default '{}',
  enabled boolean not null default true,
  ordered boolean not null default false,
  disabled_reason text check (disabled_reason in ('manual', 'gone')),
  disabled_at timestamptz,
  secret_ciphertext bytea not null,
  previous_secret_ciphertext bytea,
  previous_secret_expires_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((previous_secret_ciphertext is null) = (previous_secret_expires_at is null)),
  check (enabled = (disabled_reason is null))
);
create index webhook_endpoints_company_idx on webhook_endpoints (company_id, id);

create table webhook_events (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  public_id text not null,
  type text not null,
  payload text not null,
  occurred_at timestamptz not null,
  created_at timestamptz not null default now(),
  unique (company_id, public_id)
);
create index webhook_events_company_created_idx on webhook_events (company_id, created_at);

create table webhook_deliveries (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  endpoint_id bigint not null references webhook_endpoints (id) on delete cascade,
  event_id bigint not null references webhook_events (id) on delete cascade,
  event_occurred_at timestamptz not null,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed', 'disabled')),
  attempt_count integer not null default 0,
  retry_index integer not null default 0,
  next_attempt_at timestamptz,
  last_status_code integer,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz,
  unique (company_id, endpoint_id, event_id)
);
create index webhook_deliveries_endpoint_idx on webhook_deliveries (company_id, endpoint_id, id);
create index webhook_deliveries_event_idx on webhook_deliveries (company_id, event_id);
-- The head of an ordered endpoint's line: its oldest pending delivery by event time.
create index webhook_deliveries_pending_idx on webhook_deliveries (company_id, endpoint_id, event_occurred_at, event_id)
  where status = 'pending';

create table webhook_delivery_attempts (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  delivery_id bigint not null references webhook_deliveries (id) on delete cascade,
  attempted_at timestamptz not null,
  status_code integer,
  duration_ms integer not null check (duration_ms >= 0),
  error text,
  response_body_excerpt text check (response_body_excerpt is null or octet_length(response_body_excerpt) <= 1024)
);
create index webhook_delivery_attempts_delivery_idx on webhook_delivery_attempts (company_id, delivery_id, id);
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
drop table if exists webhook_delivery_attempts;
drop table if exists webhook_deliveries;
drop table if exists webhook_events;
drop table if exists webhook_endpoints;
`.execute(db);
};
