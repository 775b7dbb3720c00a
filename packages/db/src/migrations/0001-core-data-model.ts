/**
 * The data model of the whole contract. Every tenant table carries
 * `company_id`, and every unique key and lookup index of tenant data starts
 * with it, so the schema can later be distributed by company (DESIGN.md 6).
 * Money is integer minor units (`bigint`) beside a currency code.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
create table companies (
  id bigint generated always as identity primary key,
  name text not null check (length(name) between 1 and 255),
  email text,
  phone text,
  is_collection_agency boolean not null default false,
  current_credits integer not null default 0,
  subscription_plan text not null default 'starter',
  subscription_status text not null default 'active',
  subscription_expires_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table users (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  email text not null,
  password_hash text not null,
  role text not null default 'member' check (role in ('admin', 'member')),
  name text,
  created_at timestamptz not null default now(),
  disabled_at timestamptz
);
-- One login per e-mail across the platform: the consent page signs in by e-mail.
create unique index users_email_key on users (lower(email));
create index users_company_idx on users (company_id, id);

create table oauth_clients (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  client_id text not null unique,
  name text not null,
  secret_hash text not null,
  allowed_scopes text[] not null,
  redirect_uris text[] not null default '{}',
  created_by_user_id bigint references users (id) on delete set null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index oauth_clients_company_idx on oauth_clients (company_id, id);

-- A grant ties together every token issued from one authorization (or one
-- client_credentials exchange), so that code replay or refresh-token reuse
-- can revoke the whole family at once.
create table oauth_grants (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  client_pk bigint not null references oauth_clients (id) on delete cascade,
  user_id bigint references users (id) on delete cascade,
  grant_type text not null check (grant_type in ('client_credentials', 'authorization_code')),
  scopes text[] not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index oauth_grants_client_idx on oauth_grants (client_pk);

create table oauth_authorization_codes (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  client_pk bigint not null references oauth_clients (id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  code_hash bytea not null unique,
  redirect_uri text not null,
  scopes text[] not null,
  code_challenge text,
  code_challenge_method text check (code_challenge_method in ('S256')),
  grant_id bigint references oauth_grants (id) on delete cascade,
  expires_at timestamptz not null,
  consumed_at timestamptz,
  created_at timestamptz not null default now()
);
create index oauth_codes_expiry_idx on oauth_authorization_codes (expires_at);

create table oauth_access_tokens (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  client_pk bigint not null references oauth_clients (id) on delete cascade,
  grant_id bigint not null references oauth_grants (id) on delete cascade,
  token_hash bytea not null unique,
  scopes text[] not null,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index oauth_access_tokens_expiry_idx on oauth_access_tokens (expires_at);
create index oauth_access_tokens_grant_idx on oauth_access_tokens (grant_id);

create table oauth_refresh_tokens (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  client_pk bigint not null references oauth_clients (id) on delete cascade,
  grant_id bigint not null references oauth_grants (id) on delete cascade,
  token_hash bytea not null unique,
  scopes text[] not null,
  expires_at timestamptz not null,
  rotated_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index oauth_refresh_tokens_expiry_idx on oauth_refresh_tokens (expires_at);
create index oauth_refresh_tokens_grant_idx on oauth_refresh_tokens (grant_id);

-- Fixed-window counters shared by every API process (rate limits, failed
-- client authentication throttling). key names the subject and the rule.
create table rate_limit_counters (
  key text not null,
  window_start timestamptz not null,
  count integer not null default 0,
  expires_at timestamptz not null,
  primary key (key, window_start)
);
create index rate_limit_counters_expiry_idx on rate_limit_counters (expires_at);

create table creditors (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  name text not null,
  email text,
  phone text,
  address text,
  city text,
  postal_code text,
  country text,
  registration_number text,
  tax_number text,
  contact_person text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index creditors_company_idx on creditors (company_id, id);

create table timelines (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  name text not null,
  description text,
  is_default boolean not null default false,
  timezone text not null default 'Europe/Paris',
  allowed_weekdays smallint[] not null default '{1,2,3,4,5}',
  window_start time not null default '09:00',
  window_end time not null default '19:00',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  archived_at timestamptz
);
create index timelines_company_idx on timelines (company_id, id);

create table timeline_timepoints (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  timeline_id bigint not null references timelines (id) on delete cascade,
  position integer not null,
  day_offset integer not null,
  unique (timeline_id, position)
);
create index timeline_timepoints_company_idx on timeline_timepoints (company_id, timeline_id);

create table timeline_actions (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  timepoint_id bigint not null references timeline_timepoints (id) on delete cascade,
  position integer not null,
  channel text not null check (channel in ('ai_call', 'email', 'sms', 'whatsapp', 'voicemail', 'manual_call', 'postmail')),
  -- Non-content settings, safe to expose (voice, retries, sender name...).
  configuration jsonb not null default '{}',
  -- Message bodies, subjects, templates, callback numbers: never exposed.
  content jsonb not null default '{}',
  unique (timepoint_id, position)
);
create index timeline_actions_company_idx on timeline_actions (company_id, timepoint_id);

create table campaigns (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  api_reference text not null,
  name text not null,
  creditor_id bigint not null references creditors (id),
  timeline_id bigint not null references timelines (id),
  allow_expensive_destinations boolean not null default false,
  created_at timestamptz not null default now(),
  unique (company_id, api_reference)
);

create table debtors (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  debtor_reference text,
  civility text,
  firstname text,
  lastname text,
  email text,
  phone text,
  birthdate date,
  debtor_company text,
  address text,
  street_address text,
  street_number text,
  postal_code text,
  city text,
  country text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index debtors_reference_key on debtors (company_id, debtor_reference) where debtor_reference is not null;
create index debtors_company_idx on debtors (company_id, id);

create table debt_groups (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  created_at timestamptz not null default now()
);

create table import_batches (
  id uuid primary key,
  company_id bigint not null references companies (id) on delete cascade,
  batch_name text,
  summary jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index import_batches_company_idx on import_batches (company_id, created_at);

create table debts (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  creditor_id bigint not null references creditors (id),
  debtor_id bigint references debtors (id) on delete set null,
  campaign_id bigint references campaigns (id),
  timeline_id bigint references timelines (id),
  group_id bigint references debt_groups (id) on delete set null,
  import_id uuid references import_batches (id) on delete set null,
  status text not null default 'status.default.pending',
  is_credit_note boolean not null default false,
  credited_invoice_reference text,
  civility text,
  firstname text,
  lastname text,
  phone text,
  email text,
  birthdate date,
  -- amount_minor: the amount the debt was created with; balance_minor: what is still owed.
  amount_minor bigint not null,
  balance_minor bigint not null,
  currency char(3) not null,
  amount_text text not null,
  object text,
  internal_id text,
  invoice_reference text,
  debtor_reference text,
  invoice_date date,
  due_date date,
  address text,
  street_address text,
  street_number text,
  postal_code text,
  city text,
  country text,
  iban text,
  company text,
  debtor_company text,
  payment_link text,
  summary text,
  metadata jsonb not null default '{}',
  email_validation jsonb,
  timeline_start_mode text,
  accept_expensive_destination boolean not null default false,
  nb_reminders integer not null default 0,
  nb_answered integer not null default 0,
  followups_count integer not null default 0,
  import_date timestamptz not null default now(),
  last_timeline_restart timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index debts_company_created_idx on debts (company_id, created_at desc, id desc);
create index debts_creditor_created_idx on debts (company_id, creditor_id, created_at desc, id desc);
create index debts_company_status_idx on debts (company_id, status, created_at desc, id desc);
create index debts_debtor_idx on debts (company_id, debtor_id) where debtor_id is not null;
create index debts_group_idx on debts (company_id, group_id) where group_id is not null;
create index debts_internal_id_idx on debts (company_id, internal_id) where internal_id is not null;
create index debts_invoice_reference_idx on debts (company_id, invoice_reference) where invoice_reference is not null;
-- Snapshot identities are unique within a campaign.
create unique index debts_campaign_internal_id_key on debts (company_id, campaign_id, internal_id)
  where campaign_id is not null and internal_id is not null;
create unique index debts_campaign_invoice_reference_key on debts (company_id, campaign_id, invoice_reference)
  where campaign_id is not null and invoice_reference is not null;

create table payment_plans (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  -- The shared plan debt: a grouped plan belongs to one debt of the group.
  debt_id bigint not null references debts (id) on delete cascade,
  external_reference text,
  status text not null check (status in ('active', 'cancelled', 'completed', 'replaced')),
  start_date date,
  source text not null check (source in ('snapshot', 'api', 'portal')),
  created_at timestamptz not null default now(),
  ended_at timestamptz
);
create unique index payment_plans_one_active_key on payment_plans (company_id, debt_id) where status = 'active';
create index payment_plans_company_idx on payment_plans (company_id, status, created_at);

create table installments (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  payment_plan_id bigint not null references payment_plans (id) on delete cascade,
  position integer not null,
  external_reference text,
  amount_minor bigint not null check (amount_minor > 0),
  payment_date date not null,
  status text not null check (status in ('pending', 'paid', 'cancelled')),
  paid_at timestamptz,
  external_payment_id text,
  unique (payment_plan_id, position)
);
create index installments_company_idx on installments (company_id, payment_plan_id);

-- Payment history outlives the debt (kept for accounting), so debt_id is
-- deliberately not a foreign key.
create table payments (
  id uuid primary key,
  company_id bigint not null references companies (id) on delete cascade,
  debt_id bigint not null,
  installment_id bigint references installments (id) on delete set null,
  integration_client_pk bigint references oauth_clients (id) on delete set null,
  snapshot_id bigint,
  external_payment_id text,
  provider text not null,
  kind text not null check (kind in ('direct', 'installment', 'balance_delta', 'settlement', 'cancellation')),
  amount_minor bigint not null,
  currency char(3) not null,
  status text not null check (status in ('succeeded', 'cancelled', 'refunded', 'adjustment')),
  paid_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index payments_debt_idx on payments (company_id, debt_id, paid_at);
create unique index payments_external_id_key on payments (company_id, coalesce(integration_client_pk, 0), debt_id, external_payment_id)
  where external_payment_id is not null;

create table followups (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  debt_id bigint not null references debts (id) on delete cascade,
  status text not null default 'on_hold',
  type text not null,
  call_date timestamptz,
  scheduled_at timestamptz,
  summary text,
  notes text,
  call_id text,
  audio_object_key text,
  pdf_object_key text,
  duration_ms integer,
  disconnection_reason text,
  direction text check (direction in ('inbound', 'outbound')),
  phone_number_used text,
  is_retry boolean not null default false,
  processed_at timestamptz,
  triggered_payment boolean not null default false,
  email_open_count integer not null default 0,
  email_first_opened_at timestamptz,
  email_click_count integer not null default 0,
  credits_charged integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index followups_company_created_idx on followups (company_id, created_at desc, id desc);
create index followups_debt_idx on followups (company_id, debt_id, created_at desc);

-- Credit ledger: every consumption or refill, so current_credits can be audited.
create table credit_transactions (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  followup_id bigint references followups (id) on delete set null,
  delta integer not null,
  reason text not null,
  created_at timestamptz not null default now()
);
create index credit_transactions_company_idx on credit_transactions (company_id, created_at);

create table debtor_requests (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  debt_id bigint not null references debts (id) on delete cascade,
  type text not null check (type in ('portal_dispute', 'hardship', 'payment_plan')),
  review_status text not null default 'suggested' check (review_status in ('suggested', 'validated', 'rejected')),
  blocking boolean not null default false,
  message text,
  created_at timestamptz not null default now(),
  reviewed_at timestamptz
);
create index debtor_requests_company_idx on debtor_requests (company_id, created_at);

create table ai_detections (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  debt_id bigint not null references debts (id) on delete cascade,
  followup_id bigint references followups (id) on delete set null,
  type text not null check (type in ('ai_dispute', 'objection')),
  review_status text not null default 'suggested' check (review_status in ('suggested', 'validated', 'rejected')),
  blocking boolean not null default false,
  excerpt text,
  created_at timestamptz not null default now(),
  reviewed_at timestamptz
);
create index ai_detections_company_idx on ai_detections (company_id, created_at);

create table snapshots (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  campaign_id bigint not null references campaigns (id) on delete cascade,
  snapshot_reference text not null,
  delivery_mode text not null check (delivery_mode in ('staged', 'one_request')),
  status text not null check (status in ('pending', 'uploading', 'processing', 'completed', 'failed')),
  -- SHA-256 of the exact one-request body bytes; null for staged delivery.
  body_sha256 bytea,
  expected_row_count integer not null,
  received_row_count integer not null default 0,
  received_chunk_count integer not null default 0,
  next_chunk_index integer not null default 0,
  core_applied boolean not null default false,
  counts jsonb,
  failure jsonb,
  warnings jsonb,
  warning_count integer not null default 0,
  warnings_omitted integer not null default 0,
  integration_client_pk bigint references oauth_clients (id) on delete set null,
  accepted_seq bigint generated always as identity,
  finalized_at timestamptz,
  completed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (company_id, campaign_id, snapshot_reference)
);
create index snapshots_campaign_idx on snapshots (company_id, campaign_id, accepted_seq);

create table snapshot_chunks (
  snapshot_id bigint not null references snapshots (id) on delete cascade,
  chunk_index integer not null,
  company_id bigint not null references companies (id) on delete cascade,
  body_sha256 bytea not null,
  row_count integer not null,
  -- The chunk's rows as received (validated shape), applied by the worker.
  rows jsonb not null,
  created_at timestamptz not null default now(),
  primary key (snapshot_id, chunk_index)
);
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
drop table if exists snapshot_chunks, snapshots, ai_detections, debtor_requests, credit_transactions,
  followups, payments, installments, payment_plans, debts, import_batches, debt_groups, debtors,
  campaigns, timeline_actions, timeline_timepoints, timelines, creditors, rate_limit_counters,
  oauth_refresh_tokens, oauth_access_tokens, oauth_authorization_codes, oauth_grants, oauth_clients,
  users, companies cascade;
`.execute(db);
};
