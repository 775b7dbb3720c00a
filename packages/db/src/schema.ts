/**
 * Kysely's view of the tables created by the migrations. Kept by hand beside
 * them: a column added in a migration is added here in the same commit.
 * `bigint` columns arrive as JS numbers (see connection.ts), `date` columns as
 * `YYYY-MM-DD` strings, `timestamptz` as Date, `bytea` as Buffer.
 */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type DefaultTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json = ColumnType<unknown, string, string>;
type JsonDefault = ColumnType<unknown, string | undefined, string>;
type Id = Generated<number>;

export interface CompaniesTable {
  id: Id;
  name: string;
  email: string | null;
  phone: string | null;
  is_collection_agency: Generated<boolean>;
  current_credits: Generated<number>;
  subscription_plan: Generated<string>;
  subscription_status: Generated<string>;
  subscription_expires_at: Timestamp | null;
  /** A sandbox company's channels never leave the machine, and it runs on its own clock (migration 0026). */
  sandbox: Generated<boolean>;
  /** The sandbox company's clock; null for a live company, whose clock is the wall clock. */
  sandbox_now: Timestamp | null;
  /** IANA zone used for debtors whose zone is unknown. */
  time_zone: Generated<string>;
  /** Overrides of the compliance guard's defaults (caps, quiet hours), as JSON. */
  engine_settings: JsonDefault;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface UsersTable {
  id: Id;
  company_id: number;
  email: string;
  password_hash: string;
  role: Generated<"admin" | "member">;
  name: string | null;
  created_at: DefaultTimestamp;
  disabled_at: Timestamp | null;
}

export interface OauthClientsTable {
  id: Id;
  company_id: number;
  client_id: string;
  name: string;
  secret_hash: string;
  allowed_scopes: string[];
  redirect_uris: Generated<string[]>;
  created_by_user_id: number | null;
  created_at: DefaultTimestamp;
  revoked_at: Timestamp | null;
}

export interface OauthGrantsTable {
  id: Id;
  company_id: number;
  client_pk: number;
  user_id: number | null;
  grant_type: "client_credentials" | "authorization_code";
  scopes: string[];
  created_at: DefaultTimestamp;
  revoked_at: Timestamp | null;
}

export interface OauthAuthorizationCodesTable {
  id: Id;
  company_id: number;
  client_pk: number;
  user_id: number;
  code_hash: Buffer;
  redirect_uri: string;
  scopes: string[];
  code_challenge: string | null;
  code_challenge_method: "S256" | null;
  grant_id: number | null;
  expires_at: Timestamp;
  consumed_at: Timestamp | null;
  created_at: DefaultTimestamp;
}

interface TokenColumns {
  id: Id;
  company_id: number;
  client_pk: number;
  grant_id: number;
  token_hash: Buffer;
  scopes: string[];
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  created_at: DefaultTimestamp;
}
export type OauthAccessTokensTable = TokenColumns;
export interface OauthRefreshTokensTable extends TokenColumns {
  rotated_at: Timestamp | null;
}

/** Consent-page login sessions (migration 0005): the cookie's SHA-256, never the cookie. */
export interface OauthLoginSessionsTable {
  id: Id;
  company_id: number;
  user_id: number;
  token_hash: Buffer;
  created_at: DefaultTimestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface RateLimitCountersTable {
  key: string;
  window_start: Timestamp;
  count: Generated<number>;
  expires_at: Timestamp;
}

/** A graphile-worker pool's lease (docs/decisions/0357): renewed while the pool can reach the database. */
export interface WorkerLeasesTable {
  /** graphile-worker's pool id, as `locked_by` of its jobs. */
  pool_id: string;
  renewed_at: Timestamp;
  /** The pool's `WORKER_STALE_LOCK_SECONDS`: how long after `renewed_at` it may be taken for dead. */
  grace_seconds: number;
}

export interface CreditorsTable {
  id: Id;
  company_id: number;
  name: string;
  email: string | null;
  phone: string | null;
  address: string | null;
  city: string | null;
  postal_code: string | null;
  country: string | null;
  registration_number: string | null;
  tax_number: string | null;
  contact_person: string | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface TimelinesTable {
  id: Id;
  company_id: number;
  name: string;
  description: string | null;
  /** At most one per company among those not archived (migration 0031). */
  is_default: Generated<boolean>;
  /** Null: each debtor's own local time zone (migration 0031). */
  timezone: Generated<string | null>;
  allowed_weekdays: Generated<number[]>;
  window_start: Generated<string>;
  window_end: Generated<string>;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
  archived_at: Timestamp | null;
  /** The version new enrollments take (migration 0026). */
  current_version_id: number | null;
}

/** An immutable definition of a timeline: enrollments keep the version they started on (migration 0026). */
export interface TimelineVersionsTable {
  id: Id;
  company_id: number;
  timeline_id: number;
  version: number;
  /** `{ scheduling: { time_zone, weekdays, window: { start, end } }, steps: [{ day_offset, channel, configuration, content }] }` */
  definition: Json;
  created_at: DefaultTimestamp;
}

/** A debt on a timeline (migration 0026): at most one per debt. */
export interface EnrollmentsTable {
  id: Id;
  company_id: number;
  debt_id: number;
  timeline_id: number;
  timeline_version_id: number;
  state: "active" | "paused" | "stopped" | "completed";
  reason: string | null;
  /** Every step's due time is `anchor_at` plus its day offset; null while waiting for a manual start. */
  anchor_at: Timestamp | null;
  paused_until: Timestamp | null;
  /** Index in the version's `steps` of the next step to schedule. */
  next_step: Generated<number>;
  /** 1, then one more at each restart; followups record the run they belong to (migration 0027). */
  run: Generated<number>;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

/** A deferral or block the compliance guard decided for an engine followup (migration 0026). */
export interface FollowupDecisionsTable {
  id: Id;
  company_id: number;
  followup_id: number;
  decided_at: Timestamp;
  decision: "defer" | "block";
  reason: string;
  detail: string | null;
  deferred_until: Timestamp | null;
}

/** A channel a debtor refused for a debt (migration 0026). */
export interface ChannelOptOutsTable {
  company_id: number;
  debt_id: number;
  channel: "ai_call" | "email" | "sms" | "whatsapp" | "voicemail" | "manual_call" | "postmail";
  source: string;
  created_at: DefaultTimestamp;
}

/** Quiet hours a debtor chose on the debtor page, added to the company's by the guard (migration 0044). */
export interface DebtorPreferencesTable {
  company_id: number;
  debt_id: number;
  /** `HH:MM`, the debtor's local time. */
  quiet_start: string;
  quiet_end: string;
  updated_at: DefaultTimestamp;
}

/** What a sandbox adapter would have sent (migration 0026). */
export interface SandboxMessagesTable {
  id: Id;
  company_id: number;
  debt_id: number;
  followup_id: number;
  /** The send's idempotency key (`<followup public id>:<attempt>`), unique per company (migration 0029). */
  idempotency_key: string;
  channel: string;
  recipient: string;
  subject: string | null;
  body: string;
  outcome: string;
  sent_at: Timestamp;
  created_at: DefaultTimestamp;
}

/** A provider's acknowledgement of a send, recorded when it arrives (migration 0030, docs/decisions/0617). */
export interface ProviderAcknowledgementsTable {
  company_id: number;
  idempotency_key: string;
  followup_id: number;
  channel: string;
  provider_message_id: string;
  /** The provider's answer (an SMTP reply line). */
  response: string | null;
  acknowledged_at: DefaultTimestamp;
}

/** Addresses the engine no longer writes to: a hard bounce or a complaint (migration 0043). Lower case. */
export interface EmailUndeliverableAddressesTable {
  company_id: number;
  address: string;
  kind: "bounce" | "complaint";
  /** Where the report came from: `dsn` (a delivery status notification) or `postmark` (its webhook). */
  source: string;
  detail: string | null;
  recorded_at: DefaultTimestamp;
}

/** A person's click on a tracked link of an e-mail (migration 0043); automated fetches are not kept. */
export interface EmailClicksTable {
  company_id: number;
  followup_id: number;
  debt_id: number;
  clicked_at: Timestamp;
}

/**
 * An object the platform stores itself: a letter's PDF (migration 0042,
 * docs/decisions/0650) or a dispute's attachment (migration 0046,
 * docs/decisions/0674); exactly one of `followup_id` and `debtor_request_id` is set.
 */
export interface StoredObjectsTable {
  company_id: number;
  /** What a followup's `pdf_object_key` holds; `debtor-request-<id>` for an attachment. */
  key: string;
  followup_id: number | null;
  debtor_request_id: number | null;
  /** The attachment's name as the debtor's browser gave it; null for a letter. */
  file_name: string | null;
  content_type: string;
  body: Buffer;
  created_at: DefaultTimestamp;
}

export interface TimelineTimepointsTable {
  id: Id;
  company_id: number;
  timeline_id: number;
  position: number;
  day_offset: number;
}

export interface TimelineActionsTable {
  id: Id;
  company_id: number;
  timepoint_id: number;
  position: number;
  channel: "ai_call" | "email" | "sms" | "whatsapp" | "voicemail" | "manual_call" | "postmail";
  configuration: JsonDefault;
  content: JsonDefault;
}

export interface CampaignsTable {
  id: Id;
  company_id: number;
  api_reference: string;
  name: string;
  creditor_id: number;
  timeline_id: number;
  allow_expensive_destinations: Generated<boolean>;
  created_at: DefaultTimestamp;
}

/** The person columns of a debtor, which every debt holds too. */
export interface PersonColumns {
  civility: string | null;
  firstname: string | null;
  lastname: string | null;
  email: string | null;
  phone: string | null;
  birthdate: string | null;
  debtor_company: string | null;
  address: string | null;
  street_address: string | null;
  street_number: string | null;
  postal_code: string | null;
  city: string | null;
  country: string | null;
}

export interface DebtorsTable extends PersonColumns {
  id: Id;
  company_id: number;
  debtor_reference: string | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface DebtGroupsTable {
  id: Id;
  company_id: number;
  created_at: DefaultTimestamp;
}

export interface ImportBatchesTable {
  id: string;
  company_id: number;
  batch_name: string | null;
  summary: JsonDefault;
  created_at: DefaultTimestamp;
}

export interface DebtsTable extends PersonColumns {
  id: Id;
  company_id: number;
  creditor_id: number;
  debtor_id: number | null;
  campaign_id: number | null;
  timeline_id: number | null;
  group_id: number | null;
  import_id: string | null;
  status: Generated<string>;
  is_credit_note: Generated<boolean>;
  credited_invoice_reference: string | null;
  amount_minor: number;
  balance_minor: number;
  currency: string;
  amount_text: string;
  object: string | null;
  internal_id: string | null;
  invoice_reference: string | null;
  debtor_reference: string | null;
  invoice_date: string | null;
  due_date: string | null;
  iban: string | null;
  company: string | null;
  payment_link: string | null;
  summary: string | null;
  metadata: JsonDefault;
  email_validation: Json | null;
  timeline_start_mode: string | null;
  accept_expensive_destination: Generated<boolean>;
  nb_reminders: Generated<number>;
  nb_answered: Generated<number>;
  followups_count: Generated<number>;
  import_date: DefaultTimestamp;
  last_timeline_restart: Timestamp | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

/** Exact debt counters per creditor, currency and status, kept by triggers on debts (migration 0002). */
export interface CreditorDebtStatsTable {
  company_id: number;
  creditor_id: number;
  currency: string;
  status: string;
  /** `pg_backend_pid() % 16` of the writers whose deltas this row holds (docs/decisions/0114); readers add the shards together. */
  shard: Generated<number>;
  debt_count: number;
  /** numeric: arrives as a string. */
  amount_minor: ColumnType<string, string | number, string | number>;
  balance_minor: ColumnType<string, string | number, string | number>;
}

export interface PaymentPlansTable {
  id: Id;
  company_id: number;
  debt_id: number;
  external_reference: string | null;
  status: "active" | "cancelled" | "completed" | "replaced";
  start_date: string | null;
  source: "snapshot" | "api" | "portal";
  created_at: DefaultTimestamp;
  ended_at: Timestamp | null;
}

export interface InstallmentsTable {
  id: Id;
  company_id: number;
  payment_plan_id: number;
  position: number;
  external_reference: string | null;
  amount_minor: number;
  payment_date: string;
  status: "pending" | "paid" | "cancelled";
  paid_at: Timestamp | null;
  external_payment_id: string | null;
}

export interface PaymentsTable {
  /** Time-ordered (UUID version 7) on PostgreSQL 18, assigned by the column default (migration 0012). */
  id: Generated<string>;
  company_id: number;
  debt_id: number;
  installment_id: number | null;
  integration_client_pk: number | null;
  snapshot_id: number | null;
  external_payment_id: string | null;
  provider: string;
  kind: "direct" | "installment" | "balance_delta" | "settlement" | "cancellation";
  amount_minor: number;
  currency: string;
  status: "succeeded" | "cancelled" | "refunded" | "adjustment";
  paid_at: Timestamp;
  created_at: DefaultTimestamp;
}

export interface FollowupsTable {
  id: Id;
  company_id: number;
  debt_id: number;
  status: Generated<string>;
  type: string;
  call_date: Timestamp | null;
  scheduled_at: Timestamp | null;
  summary: string | null;
  notes: string | null;
  call_id: string | null;
  audio_object_key: string | null;
  pdf_object_key: string | null;
  duration_ms: number | null;
  disconnection_reason: string | null;
  direction: "inbound" | "outbound" | null;
  phone_number_used: string | null;
  is_retry: Generated<boolean>;
  processed_at: Timestamp | null;
  triggered_payment: Generated<boolean>;
  email_open_count: Generated<number>;
  email_first_opened_at: Timestamp | null;
  email_click_count: Generated<number>;
  /** Whether an automated open (an image proxy) or click (a link scanner) was already counted (migration 0043). */
  email_automated_open: Generated<boolean>;
  email_automated_click: Generated<boolean>;
  credits_charged: Generated<number>;
  /** Engine columns (migration 0026): null `enrollment_id` for followups the API recorded. */
  enrollment_id: number | null;
  step: number | null;
  attempt: Generated<number>;
  /** The enrollment's run this followup belongs to; null exactly when `enrollment_id` is (migration 0027). */
  run: number | null;
  /** The step's due time from the enrollment's anchor; `scheduled_at` is later when the guard deferred it. */
  due_at: Timestamp | null;
  sandbox: Generated<boolean>;
  recipient: string | null;
  provider_message_id: string | null;
  /** The guard's last deferral or block reason, and its detail. */
  guard_reason: string | null;
  guard_detail: string | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface CreditTransactionsTable {
  id: Id;
  company_id: number;
  followup_id: number | null;
  delta: number;
  reason: string;
  created_at: DefaultTimestamp;
}

/** A provider's verified callback, stored once per key and applied by the worker (migration 0041, docs/decisions/0630). */
export interface ProviderEventsTable {
  company_id: number;
  id: Id;
  provider: "twilio" | "retell" | "lob";
  event_key: string;
  followup_id: number | null;
  payload: unknown;
  received_at: DefaultTimestamp;
  processed_at: Timestamp | null;
}

interface ReviewColumns {
  id: Id;
  company_id: number;
  debt_id: number;
  review_status: Generated<"suggested" | "validated" | "rejected">;
  blocking: Generated<boolean>;
  created_at: DefaultTimestamp;
  reviewed_at: Timestamp | null;
  /** The company's note of its review (migration 0045). */
  review_note: string | null;
}
export interface DebtorRequestsTable extends ReviewColumns {
  type: "portal_dispute" | "hardship" | "payment_plan";
  message: string | null;
  /** What the debtor's page recorded: a plan proposal's schedule, a dispute's reason (migrations 0044, 0045). */
  content: JsonDefault;
}
export interface AiDetectionsTable extends ReviewColumns {
  followup_id: number | null;
  type: "ai_dispute" | "objection";
  excerpt: string | null;
}

export interface SnapshotsTable {
  id: Id;
  company_id: number;
  campaign_id: number;
  snapshot_reference: string;
  delivery_mode: "staged" | "one_request";
  status: "pending" | "uploading" | "processing" | "completed" | "failed";
  body_sha256: Buffer | null;
  /** Null while a staged snapshot opened by its chunk 0 has no declared count (migration 0023). */
  expected_row_count: number | null;
  received_row_count: Generated<number>;
  received_chunk_count: Generated<number>;
  next_chunk_index: Generated<number>;
  core_applied: Generated<boolean>;
  counts: Json | null;
  failure: Json | null;
  warnings: Json | null;
  warning_count: Generated<number>;
  warnings_omitted: Generated<number>;
  integration_client_pk: number | null;
  accepted_seq: Generated<number>;
  finalized_at: Timestamp | null;
  completed_at: Timestamp | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

export interface SnapshotChunksTable {
  snapshot_id: number;
  chunk_index: number;
  company_id: number;
  body_sha256: Buffer;
  row_count: number;
  /** The request body exactly as received: `{"rows": [...]}` (migration 0009); null once purged. */
  body: ColumnType<string | null, string, null>;
  /** Each row's `internal_id` and `invoice_reference`, in row order (written as array literals); null once purged. */
  internal_ids: ColumnType<Array<string | null> | null, string, null>;
  invoice_references: ColumnType<Array<string | null> | null, string, null>;
  /** When the retention purge cleared the three columns above (docs/decisions/0021). */
  body_purged_at: ColumnType<Date | null, never, Date>;
  created_at: DefaultTimestamp;
}

/**
 * A creating request's `Idempotency-Key` and the answer it got (migration
 * 0019, docs/decisions/0024). The answer columns are null only inside the
 * claiming transaction.
 */
export interface IdempotencyKeysTable {
  company_id: number;
  idempotency_key: string;
  /** The contract's operationId. */
  operation: string;
  /** SHA-256 of the operation, its parameters and the raw body: what "the same request" means. */
  request_sha256: Buffer;
  response_status: number | null;
  /** The answer's JSON text, as sent. */
  response_body: string | null;
  /** Headers the handler set on the answer (not the rate-limit headers, which are the retry's own). */
  response_headers: ColumnType<Record<string, string> | null, string | null, string | null>;
  created_at: Date;
  expires_at: Date;
}

/** Webhook endpoints (migration 0008): the signing secrets only encrypted (docs/decisions/0451). */
export interface WebhookEndpointsTable {
  id: Id;
  company_id: number;
  url: string;
  description: string | null;
  /** Subscribed event types; empty means every type. */
  event_types: Generated<string[]>;
  enabled: Generated<boolean>;
  ordered: Generated<boolean>;
  disabled_reason: "manual" | "gone" | null;
  disabled_at: Timestamp | null;
  secret_ciphertext: Buffer;
  previous_secret_ciphertext: Buffer | null;
  previous_secret_expires_at: Timestamp | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

/** The webhook outbox (migration 0008): `payload` is the exact body every attempt sends. */
export interface WebhookEventsTable {
  id: Id;
  company_id: number;
  public_id: string;
  type: string;
  payload: string;
  occurred_at: Timestamp;
  created_at: DefaultTimestamp;
}

export interface WebhookDeliveriesTable {
  id: Id;
  company_id: number;
  endpoint_id: number;
  event_id: number;
  event_occurred_at: Timestamp;
  status: Generated<"pending" | "succeeded" | "failed" | "disabled">;
  attempt_count: Generated<number>;
  /** Failed attempts since the delivery was (re)queued: the position in the retry schedule. */
  retry_index: Generated<number>;
  next_attempt_at: Timestamp | null;
  last_status_code: number | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
  completed_at: Timestamp | null;
}

export interface WebhookDeliveryAttemptsTable {
  id: Id;
  company_id: number;
  delivery_id: number;
  attempted_at: Timestamp;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body_excerpt: string | null;
}

export interface Database {
  companies: CompaniesTable;
  users: UsersTable;
  oauth_clients: OauthClientsTable;
  oauth_grants: OauthGrantsTable;
  oauth_authorization_codes: OauthAuthorizationCodesTable;
  oauth_access_tokens: OauthAccessTokensTable;
  oauth_refresh_tokens: OauthRefreshTokensTable;
  rate_limit_counters: RateLimitCountersTable;
  worker_leases: WorkerLeasesTable;
  oauth_login_sessions: OauthLoginSessionsTable;
  creditors: CreditorsTable;
  timelines: TimelinesTable;
  timeline_timepoints: TimelineTimepointsTable;
  timeline_actions: TimelineActionsTable;
  timeline_versions: TimelineVersionsTable;
  enrollments: EnrollmentsTable;
  followup_decisions: FollowupDecisionsTable;
  channel_opt_outs: ChannelOptOutsTable;
  debtor_preferences: DebtorPreferencesTable;
  sandbox_messages: SandboxMessagesTable;
  provider_acknowledgements: ProviderAcknowledgementsTable;
  provider_events: ProviderEventsTable;
  email_undeliverable_addresses: EmailUndeliverableAddressesTable;
  email_clicks: EmailClicksTable;
  stored_objects: StoredObjectsTable;
  campaigns: CampaignsTable;
  debtors: DebtorsTable;
  debt_groups: DebtGroupsTable;
  import_batches: ImportBatchesTable;
  debts: DebtsTable;
  creditor_debt_stats: CreditorDebtStatsTable;
  payment_plans: PaymentPlansTable;
  installments: InstallmentsTable;
  payments: PaymentsTable;
  followups: FollowupsTable;
  credit_transactions: CreditTransactionsTable;
  debtor_requests: DebtorRequestsTable;
  ai_detections: AiDetectionsTable;
  snapshots: SnapshotsTable;
  snapshot_chunks: SnapshotChunksTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
}

export type Company = Selectable<CompaniesTable>;
export type Creditor = Selectable<CreditorsTable>;
export type Debt = Selectable<DebtsTable>;
export type DebtUpdate = Updateable<DebtsTable>;
export type Followup = Selectable<FollowupsTable>;
export type NewFollowup = Insertable<FollowupsTable>;
export type FollowupUpdate = Updateable<FollowupsTable>;
export type OauthClient = Selectable<OauthClientsTable>;
export type Snapshot = Selectable<SnapshotsTable>;
export type NewWebhookEndpoint = Insertable<WebhookEndpointsTable>;
export type WebhookEndpointUpdate = Updateable<WebhookEndpointsTable>;
