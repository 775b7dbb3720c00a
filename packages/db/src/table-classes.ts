/**
 * Every table of the `public` schema, by how it would be placed if the
 * database were distributed by `company_id` (DESIGN.md 6,
 * docs/decisions/0023). The catalog test (packages/db/test/tenant-keys.test.ts)
 * fails for a table missing here, and holds each class to its rules.
 *
 * - `tenant`: tenant data, distributed by `company_id`. Its primary key and
 *   every unique index include `company_id`, and every foreign key to
 *   another tenant table names `company_id` on both sides.
 * - `company`: the tenants themselves (`companies`, whose `id` is every
 *   other table's `company_id`): a small reference table, replicated.
 * - `authentication`: the authentication directory, read before the
 *   company is known (a user by e-mail, a client by `client_id`, a token,
 *   code or login session by its hash): reference tables (users, clients)
 *   or tables local to the coordinator (grants, codes, tokens, sessions).
 *   Tenant tables may reference them; they never reference tenant tables.
 * - `system`: state of no tenant (rate-limit counters, the migrator's
 *   bookkeeping, the worker pools' leases). graphile-worker's own schema is system state too.
 */
export type TableClass = "tenant" | "company" | "authentication" | "system";

export const tableClasses: Readonly<Record<string, TableClass>> = {
  ai_detections: "tenant",
  campaigns: "tenant",
  channel_opt_outs: "tenant",
  credit_transactions: "tenant",
  creditor_debt_stats: "tenant",
  creditors: "tenant",
  debt_groups: "tenant",
  debtor_preferences: "tenant",
  debtor_requests: "tenant",
  debtors: "tenant",
  debts: "tenant",
  email_clicks: "tenant",
  email_undeliverable_addresses: "tenant",
  enrollments: "tenant",
  followup_decisions: "tenant",
  followups: "tenant",
  idempotency_keys: "tenant",
  import_batches: "tenant",
  installments: "tenant",
  payment_plans: "tenant",
  payments: "tenant",
  provider_acknowledgements: "tenant",
  provider_events: "tenant",
  snapshot_chunks: "tenant",
  snapshots: "tenant",
  stored_objects: "tenant",
  sandbox_messages: "tenant",
  timeline_actions: "tenant",
  timeline_timepoints: "tenant",
  timeline_versions: "tenant",
  timelines: "tenant",
  webhook_deliveries: "tenant",
  webhook_delivery_attempts: "tenant",
  webhook_endpoints: "tenant",
  webhook_events: "tenant",

  companies: "company",

  users: "authentication",
  oauth_clients: "authentication",
  oauth_grants: "authentication",
  oauth_authorization_codes: "authentication",
  oauth_access_tokens: "authentication",
  oauth_refresh_tokens: "authentication",
  oauth_login_sessions: "authentication",

  rate_limit_counters: "system",
  worker_leases: "system",
  kysely_migration: "system",
  kysely_migration_lock: "system",
};
