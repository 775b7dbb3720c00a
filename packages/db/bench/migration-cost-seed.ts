/**
 * The production-like volume the migration benchmark measures on, written
 * set-based (one `insert ... select` over `generate_series` per table) into
 * a schema at migration 0019. Every table migration 0020 rekeys or checks,
 * and every table migration 0021 indexes, is filled in proportion to the
 * debts: for 1,000,000 debts, 2,000,000 payments, 200,000 plans with
 * 600,000 installments, 1,000,000 followups, 100,000 snapshots of two
 * chunks each, 500,000 webhook events and deliveries.
 *
 * Ids are given explicitly (`overriding system value`), so that a row's
 * company follows from its id (`1 + (id - 1) % 10`) and every reference
 * names a parent of the same company, as the reference triggers and 0020's
 * new composite foreign keys require; the identities are moved past them at
 * the end. The triggers stay on: they check what is written, once per
 * statement.
 */
import { type Kysely, type RawBuilder, sql } from "kysely";

export const COMPANIES = 10;

/** Row counts of the seeded tables, derived from the number of debts (a multiple of 10,000). */
export const volumeFor = (debts: number) => ({
  creditors: 10 * COMPANIES,
  timelines: 2 * COMPANIES,
  campaigns: 2 * COMPANIES,
  debtors: (debts * 6) / 10,
  debt_groups: debts / 20,
  import_batches: debts / 1_000,
  debts,
  payment_plans: debts / 5,
  installments: (debts / 5) * 3,
  payments: debts * 2,
  followups: debts,
  credit_transactions: debts / 2,
  debtor_requests: debts / 50,
  ai_detections: debts / 20,
  snapshots: debts / 10,
  snapshot_chunks: (debts / 10) * 2,
  webhook_endpoints: 2 * COMPANIES,
  webhook_events: debts / 2,
  webhook_deliveries: debts / 2,
  oauth_access_tokens: debts / 20,
  oauth_refresh_tokens: debts / 20,
});

export type Volume = ReturnType<typeof volumeFor>;

const lit = (value: number) => sql.lit(value);
/** The company of an id in this seed: ids are dealt to the companies in turn. */
const companyOf = (id: RawBuilder<unknown>) => sql`(1 + (${id} - 1) % ${lit(COMPANIES)})`;
/**
 * The `n`-th of `count` rows' parent among `total` rows (count divides total,
 * both multiples of 10): distinct for distinct `n`, spread over the whole
 * table, and of `n`'s company (congruent to `n` modulo 10).
 */
const spread = (count: number, total: number) => sql`(n + ${lit(10 * (total / count - 1))} * ((n - 1) / 10))`;

/**
 * Fills the tables; `progress` is told each statement's table and duration.
 * The database must be at migration 0019 and empty.
 */
export const seedProductionVolume = async (
  db: Kysely<unknown>,
  volume: Volume,
  progress: (table: string, ms: number) => void,
): Promise<void> => {
  const run = async (table: string, statement: RawBuilder<unknown>) => {
    const started = performance.now();
    await statement.execute(db);
    progress(table, performance.now() - started);
  };
  const series = (count: number) => sql`generate_series(1, ${lit(count)}) as n`;
  const c = companyOf(sql`n`);

  await run(
    "companies",
    sql`insert into companies (id, name) overriding system value
    select n, 'Company ' || n from ${series(COMPANIES)}`,
  );
  await run(
    "users",
    sql`insert into users (id, company_id, email, password_hash, role) overriding system value
    select n, ${c}, 'user' || n || '@example.com', 'x', 'admin' from ${series(5 * COMPANIES)}`,
  );
  await run(
    "oauth_clients",
    sql`insert into oauth_clients (id, company_id, client_id, name, secret_hash,
      allowed_scopes, created_by_user_id) overriding system value
    select n, ${c}, 'client-' || n, 'Integration ' || n, 'x', '{debts:read,debts:write}', n from ${series(2 * COMPANIES)}`,
  );
  await run(
    "creditors",
    sql`insert into creditors (id, company_id, name) overriding system value
    select n, ${c}, 'Creditor ' || n from ${series(volume.creditors)}`,
  );
  await run(
    "timelines",
    sql`insert into timelines (id, company_id, name) overriding system value
    select n, ${c}, 'Timeline ' || n from ${series(volume.timelines)}`,
  );
  await run(
    "timeline_timepoints",
    sql`insert into timeline_timepoints (id, company_id, timeline_id, position, day_offset)
      overriding system value
    select n, ${companyOf(sql`(1 + (n - 1) % ${lit(volume.timelines)})`)}, 1 + (n - 1) % ${lit(volume.timelines)},
      (n - 1) / ${lit(volume.timelines)}, 7 * n
    from ${series(5 * volume.timelines)}`,
  );
  await run(
    "timeline_actions",
    sql`insert into timeline_actions (id, company_id, timepoint_id, position, channel)
      overriding system value
    select n, p.company_id, p.id, (n - 1) / ${lit(5 * volume.timelines)}, 'email'
    from ${series(10 * volume.timelines)} join timeline_timepoints p on p.id = 1 + (n - 1) % ${lit(5 * volume.timelines)}`,
  );
  // Campaign k uses creditor k and timeline k, all three of company 1 + (k - 1) % 10.
  await run(
    "campaigns",
    sql`insert into campaigns (id, company_id, api_reference, name, creditor_id, timeline_id)
      overriding system value
    select n, ${c}, 'campaign-' || n, 'Campaign ' || n, n, n from ${series(volume.campaigns)}`,
  );
  await run(
    "debtors",
    sql`insert into debtors (id, company_id, debtor_reference, firstname, lastname, email)
      overriding system value
    select n, ${c}, 'D' || n, 'First' || n, 'Last' || n, 'debtor' || n || '@example.com' from ${series(volume.debtors)}`,
  );
  await run(
    "debt_groups",
    sql`insert into debt_groups (id, company_id) overriding system value
    select n, ${c} from ${series(volume.debt_groups)}`,
  );
  await run(
    "import_batches",
    sql`insert into import_batches (id, company_id, batch_name)
    select ('00000000-0000-4000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, ${c}, 'Import ' || n
    from ${series(volume.import_batches)}`,
  );

  // Even debts belong to a campaign (a snapshot's, with its timeline), odd ones were written through the api.
  // Every parent picked by `1 + (n - 1) % count` (count a multiple of 10) is of the debt's company.
  await run(
    "debts",
    sql`insert into debts (id, company_id, creditor_id, campaign_id, timeline_id, debtor_id, group_id,
      import_id, status, amount_minor, balance_minor, currency, amount_text, firstname, lastname, email, internal_id,
      invoice_reference, created_at, import_date) overriding system value
    select n, ${c},
      case when n % 2 = 0 then 1 + (n - 1) % ${lit(volume.campaigns)} else 1 + (n - 1) % ${lit(volume.creditors)} end,
      case when n % 2 = 0 then 1 + (n - 1) % ${lit(volume.campaigns)} end,
      case when n % 2 = 0 then 1 + (n - 1) % ${lit(volume.campaigns)} end,
      case when n % 5 <> 0 then 1 + (n - 1) % ${lit(volume.debtors)} end,
      case when n % 20 = 1 then 1 + (n - 1) % ${lit(volume.debt_groups)} end,
      case when n % 6 = 3 then ('00000000-0000-4000-8000-' || lpad(to_hex(1 + (n - 1) % ${lit(volume.import_batches)}), 12, '0'))::uuid end,
      (array['status.default.pending','status.default.in_progress','status.default.paid','status.default.payment_plan'])[1 + n % 4],
      10000 + n % 90000, case when n % 4 = 2 then 0 else 10000 + n % 90000 end, 'EUR',
      to_char((10000 + n % 90000) / 100.0, 'FM999999990.00'),
      'First' || n, 'Last' || n, 'debtor' || n || '@example.com', 'INV-' || n, 'F-' || n,
      timestamptz '2025-01-01' + n * interval '20 seconds', timestamptz '2025-01-01' + n * interval '20 seconds'
    from ${series(volume.debts)}`,
  );

  // Plan p is one debt's of its company (`planDebt`); its installments are 3p - 2 (paid), 3p - 1 and 3p.
  const planDebt = spread(volume.payment_plans, volume.debts);
  await run(
    "payment_plans",
    sql`insert into payment_plans (id, company_id, debt_id, external_reference, status, start_date, source)
      overriding system value
    select n, ${c}, ${planDebt}, 'plan-' || n,
      case when n % 4 = 0 then 'completed' else 'active' end, date '2025-06-01', 'snapshot'
    from ${series(volume.payment_plans)}`,
  );
  await run(
    "installments",
    sql`insert into installments (id, company_id, payment_plan_id, position, external_reference,
      amount_minor, payment_date, status, paid_at, external_payment_id) overriding system value
    select n, ${companyOf(sql`((n + 2) / 3)`)}, (n + 2) / 3, (n - 1) % 3, 'i' || (n - 1) % 3, 5000,
      date '2025-06-01' + ((n - 1) % 3) * 30, case when n % 3 = 1 then 'paid' else 'pending' end,
      case when n % 3 = 1 then timestamptz '2025-06-01 10:00Z' end, case when n % 3 = 1 then 'ip-' || n end
    from ${series(volume.installments)}`,
  );
  // The first plans' paid installments each have their payment; the rest are direct payments and balance deltas.
  await run(
    "payments",
    sql`insert into payments (company_id, debt_id, installment_id, integration_client_pk, provider,
      kind, amount_minor, currency, status, paid_at, external_payment_id)
    select ${companyOf(sql`d`)}, d, case when n <= ${lit(volume.payment_plans)} then 3 * n - 2 end,
      case when d % 2 = 0 then ${companyOf(sql`d`)} end, 'snapshot',
      case when n <= ${lit(volume.payment_plans)} then 'installment' when n % 2 = 0 then 'balance_delta' else 'direct' end,
      2500, 'EUR', 'succeeded', timestamptz '2025-01-01' + n * interval '10 seconds', 'pay-' || n
    from ${series(volume.payments)},
      lateral (select case when n <= ${lit(volume.payment_plans)} then ${planDebt} else 1 + (n - 1) % ${lit(volume.debts)} end as d) pick`,
  );
  await run(
    "followups",
    sql`insert into followups (id, company_id, debt_id, status, type, direction, created_at)
      overriding system value
    select n, ${c}, n, 'done', 'email', 'outbound', timestamptz '2025-02-01' + n * interval '20 seconds'
    from ${series(volume.followups)}`,
  );
  await run(
    "credit_transactions",
    sql`insert into credit_transactions (id, company_id, followup_id, delta, reason)
      overriding system value
    select n, ${c}, n, -1, 'followup' from ${series(volume.credit_transactions)}`,
  );
  await run(
    "debtor_requests",
    sql`insert into debtor_requests (id, company_id, debt_id, type, message)
      overriding system value
    select n, ${c}, ${spread(volume.debtor_requests, volume.debts)}, 'hardship', 'Request ' || n
    from ${series(volume.debtor_requests)}`,
  );
  await run(
    "ai_detections",
    sql`insert into ai_detections (id, company_id, debt_id, followup_id, type, excerpt)
      overriding system value
    select n, ${c}, d, case when n % 2 = 0 then d end, 'objection', 'Excerpt'
    from ${series(volume.ai_detections)}, lateral (select ${spread(volume.ai_detections, volume.debts)} as d) pick`,
  );

  // Snapshot s is of campaign 1 + (s - 1) % 20, sent by its company's first client; two chunks each, four in five
  // of them past the body retention (purged).
  await run(
    "snapshots",
    sql`insert into snapshots (id, accepted_seq, company_id, campaign_id, snapshot_reference,
      delivery_mode, status, expected_row_count, received_row_count, received_chunk_count, next_chunk_index,
      core_applied, counts, integration_client_pk, finalized_at, completed_at, created_at, updated_at)
      overriding system value
    select n, n, ${c}, 1 + (n - 1) % ${lit(volume.campaigns)}, 'snap-' || n, 'staged', 'completed', 4, 4, 2, 2, true,
      '{"debts_created":0}', ${c}, t, t, t, t
    from ${series(volume.snapshots)}, lateral (select timestamptz '2025-01-01' + n * interval '5 minutes' as t) at`,
  );
  await run(
    "snapshot_chunks",
    sql`insert into snapshot_chunks (snapshot_id, chunk_index, company_id, body_sha256,
      row_count, body, internal_ids, invoice_references, body_purged_at)
    select s, k, ${companyOf(sql`s`)}, '\\x00', 2,
      case when s % 5 = 0 then '[{"internal_id":"a","remaining_amount":1},{"internal_id":"b","remaining_amount":2}]' end,
      case when s % 5 = 0 then '{a,b}'::text[] end, case when s % 5 = 0 then '{NULL,NULL}'::text[] end,
      case when s % 5 <> 0 then timestamptz '2025-06-01' end
    from generate_series(1, ${lit(volume.snapshots)}) s, generate_series(0, 1) k`,
  );

  await run(
    "webhook_endpoints",
    sql`insert into webhook_endpoints (id, company_id, url, event_types, secret_ciphertext)
      overriding system value
    select n, ${c}, 'https://hooks.example.com/' || n, '{}', '\\x00' from ${series(volume.webhook_endpoints)}`,
  );
  await run(
    "webhook_events",
    sql`insert into webhook_events (id, company_id, public_id, type, payload, occurred_at, created_at)
      overriding system value
    select n, ${c}, 'evt_' || md5(n::text), 'debt.updated', '{"type":"debt.updated","data":{"id":"' || n || '"}}', t, t
    from ${series(volume.webhook_events)}, lateral (select timestamptz '2025-09-01' + n * interval '5 seconds' as t) at`,
  );
  await run(
    "webhook_deliveries",
    sql`insert into webhook_deliveries (id, company_id, endpoint_id, event_id,
      event_occurred_at, status, attempt_count, created_at, updated_at, completed_at) overriding system value
    select n, ${c}, 1 + (n - 1) % ${lit(volume.webhook_endpoints)}, n, t, 'succeeded', 1 + (n % 5 = 0)::int, t, t, t
    from ${series(volume.webhook_deliveries)}, lateral (select timestamptz '2025-09-01' + n * interval '5 seconds' as t) at`,
  );
  // One attempt per delivery, two for one in five (a first failure, then a success).
  await run(
    "webhook_delivery_attempts",
    sql`insert into webhook_delivery_attempts (company_id, delivery_id, attempted_at,
      status_code, duration_ms)
    select d.company_id, d.id, d.created_at, case when a < d.attempt_count then 500 else 200 end, 40
    from webhook_deliveries d, lateral generate_series(1, d.attempt_count) a`,
  );

  // The authentication directory (indexed by 0021): a grant per 1,000 tokens, each of the company's clients.
  const grants = volume.oauth_access_tokens / 100;
  await run(
    "oauth_grants",
    sql`insert into oauth_grants (id, company_id, client_pk, grant_type, scopes)
      overriding system value
    select n, ${c}, 1 + (n - 1) % ${lit(2 * COMPANIES)}, 'client_credentials', '{debts:read}' from ${series(grants)}`,
  );
  await run(
    "oauth_authorization_codes",
    sql`insert into oauth_authorization_codes (company_id, client_pk, user_id,
      code_hash, redirect_uri, scopes, grant_id, expires_at, consumed_at)
    select g.company_id, g.client_pk, g.company_id, sha256(('code-' || g.id)::bytea), 'https://app.example.com/cb',
      g.scopes, g.id, timestamptz '2025-06-01', timestamptz '2025-06-01'
    from oauth_grants g`,
  );
  for (const table of ["oauth_access_tokens", "oauth_refresh_tokens"] as const) {
    await run(
      table,
      sql`insert into ${sql.table(table)} (company_id, client_pk, grant_id, token_hash, scopes, expires_at)
      select g.company_id, g.client_pk, g.id, sha256((${sql.lit(table)} || n)::bytea), g.scopes, timestamptz '2030-01-01'
      from ${series(volume[table])} join oauth_grants g on g.id = 1 + (n - 1) % ${lit(grants)}`,
    );
  }
  await run(
    "oauth_login_sessions",
    sql`insert into oauth_login_sessions (company_id, user_id, token_hash, expires_at)
    select u.company_id, u.id, sha256(('session-' || u.id || '-' || k)::bytea), timestamptz '2030-01-01'
    from users u, generate_series(1, 20) k`,
  );

  // Later inserts (none in the benchmark) would otherwise be given ids the seed already used.
  const identities = identityColumns.map(([table, column]) => `('${table}', '${column}')`).join(", ");
  await run(
    "identities",
    sql`do $$
    declare r record; m bigint;
    begin
      for r in select * from (values ${sql.raw(identities)}) as i(t, col) loop
        execute format('select coalesce(max(%I), 1) from %I', r.col, r.t) into m;
        perform setval(pg_get_serial_sequence(r.t, r.col), m);
      end loop;
    end $$`,
  );
};

/** The identity columns this seed writes explicitly. */
const identityColumns: ReadonlyArray<readonly [string, string]> = [
  ["companies", "id"],
  ["users", "id"],
  ["oauth_clients", "id"],
  ["creditors", "id"],
  ["timelines", "id"],
  ["timeline_timepoints", "id"],
  ["timeline_actions", "id"],
  ["campaigns", "id"],
  ["debtors", "id"],
  ["debt_groups", "id"],
  ["debts", "id"],
  ["payment_plans", "id"],
  ["installments", "id"],
  ["followups", "id"],
  ["credit_transactions", "id"],
  ["debtor_requests", "id"],
  ["ai_detections", "id"],
  ["snapshots", "id"],
  ["snapshots", "accepted_seq"],
  ["webhook_endpoints", "id"],
  ["webhook_events", "id"],
  ["webhook_deliveries", "id"],
  ["oauth_grants", "id"],
];
