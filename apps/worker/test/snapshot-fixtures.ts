/**
 * Rows for snapshot tests: a company with a creditor, a timeline, a campaign
 * and an integration client; snapshots stored as the api stores them
 * (chunks of raw rows, `pending`); and readers of the resulting state.
 */
import { randomBytes } from "node:crypto";
import type { DebtorLinkSigner } from "@dc/crypto";
import { chunkIdentityColumns, type Database, insertTimeline, makeIds, snapshotQueueName } from "@dc/db";
import type { TimelineDefinition } from "@dc/domain";
import { type Kysely, sql } from "kysely";
import { DEVELOPMENT_PUBLIC_BASE_URL } from "../src/config.ts";

const testSecret = new TextEncoder().encode("snapshot-tests-id-secret-of-at-least-32-bytes");

/** The id codec of snapshot tests (the worker's `ids`). */
export const testIds = makeIds(testSecret);

/** The debtor page link signer of worker tests (the worker's `links`): the development origin, `testIds`' secret. */
export const testLinks: DebtorLinkSigner = { origin: DEVELOPMENT_PUBLIC_BASE_URL, secret: testSecret };

export interface CampaignFixture {
  readonly companyId: number;
  readonly creditorId: number;
  readonly timelineId: number;
  readonly campaignId: number;
  readonly clientPk: number;
}

/** One e-mail at day 0 and one at day 7, on weekdays from 09:00 to 19:00 in the debtor's zone. */
export const fixtureTimeline: TimelineDefinition.Definition = {
  scheduling: { time_zone: null, weekdays: [1, 2, 3, 4, 5], window: { start: "09:00", end: "19:00" } },
  steps: [
    { day_offset: 0, channel: "email", configuration: {}, content: {} },
    { day_offset: 7, channel: "email", configuration: {}, content: {} },
  ],
};

const suffix = (): string => randomBytes(4).toString("hex");

export const insertCampaign = async (
  db: Kysely<Database>,
  options: {
    readonly allowExpensiveDestinations?: boolean;
    /**
     * false: a timeline without a version, so no debt is enrolled. For tests of the snapshot apply in
     * worker processes, whose collection engine would otherwise work the new debts meanwhile.
     */
    readonly enrolling?: boolean;
  } = {},
): Promise<CampaignFixture> => {
  const company = await db.insertInto("companies").values({ name: "Acme" }).returning("id").executeTakeFirstOrThrow();
  const creditor = await db
    .insertInto("creditors")
    .values({ company_id: company.id, name: "Acme Creditor" })
    .returning("id")
    .executeTakeFirstOrThrow();
  // Its version 1 makes the debts a snapshot creates enter the timeline, as in production.
  const timeline =
    options.enrolling === false
      ? await db
          .insertInto("timelines")
          .values({ company_id: company.id, name: "Default" })
          .returning("id")
          .executeTakeFirstOrThrow()
      : await db.transaction().execute((trx) => insertTimeline(trx, company.id, "Default", fixtureTimeline));
  const campaign = await db
    .insertInto("campaigns")
    .values({
      company_id: company.id,
      api_reference: `campaign-${suffix()}`,
      name: "Receivables",
      creditor_id: creditor.id,
      timeline_id: timeline.id,
      ...(options.allowExpensiveDestinations === undefined
        ? {}
        : { allow_expensive_destinations: options.allowExpensiveDestinations }),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const client = await db
    .insertInto("oauth_clients")
    .values({
      company_id: company.id,
      client_id: `client-${suffix()}`,
      name: "Integration",
      secret_hash: "not-a-real-hash",
      allowed_scopes: ["debts:write"],
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return {
    companyId: company.id,
    creditorId: creditor.id,
    timelineId: timeline.id,
    campaignId: campaign.id,
    clientPk: client.id,
  };
};

/** The company of each snapshot `insertSnapshot` stored, by snapshot id. */
const companyOfSnapshot = new Map<number, number>();

/** How the worker names a snapshot `insertSnapshot` stored: its company and its id. */
export const snapshotKey = (id: number): { readonly companyId: number; readonly id: number } => {
  const companyId = companyOfSnapshot.get(id);
  if (companyId === undefined) throw new Error(`snapshot ${id} was not stored by insertSnapshot`);
  return { companyId, id };
};

/**
 * Stores a `pending` snapshot whose chunks hold `chunks` (raw rows, as
 * received), as the api does on acceptance; optionally queues its job as
 * the api does. Returns the snapshot id.
 */
export const insertSnapshot = async (
  db: Kysely<Database>,
  campaign: CampaignFixture,
  chunks: ReadonlyArray<ReadonlyArray<unknown>>,
  options: { readonly enqueue?: boolean; readonly reference?: string } = {},
): Promise<number> =>
  db.transaction().execute(async (trx) => {
    const rowCount = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    const snapshot = await trx
      .insertInto("snapshots")
      .values({
        company_id: campaign.companyId,
        campaign_id: campaign.campaignId,
        snapshot_reference: options.reference ?? `snapshot-${suffix()}`,
        delivery_mode: chunks.length === 1 ? "one_request" : "staged",
        status: "pending",
        expected_row_count: rowCount,
        received_row_count: rowCount,
        received_chunk_count: chunks.length,
        next_chunk_index: chunks.length,
        integration_client_pk: campaign.clientPk,
        finalized_at: new Date(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    for (const [index, rows] of chunks.entries()) {
      await trx
        .insertInto("snapshot_chunks")
        .values({
          snapshot_id: snapshot.id,
          chunk_index: index,
          company_id: campaign.companyId,
          body_sha256: randomBytes(32),
          row_count: rows.length,
          body: JSON.stringify({ rows }),
          ...chunkIdentityColumns(rows),
        })
        .execute();
    }
    companyOfSnapshot.set(snapshot.id, campaign.companyId);
    if (options.enqueue === true) await enqueueApply(trx, snapshot.id, campaign.campaignId);
    return snapshot.id;
  });

/**
 * Adds the `apply_snapshot` job exactly as the api agreed to (queue, job key,
 * attempts, payload `{ snapshot_id, company_id }`).
 */
export const enqueueApply = async (db: Kysely<Database>, snapshotId: number, campaignId: number): Promise<string> => {
  const payload = { snapshot_id: snapshotId, company_id: snapshotKey(snapshotId).companyId };
  const { rows } = await sql<{ id: string }>`
    select id from graphile_worker.add_job(
      'apply_snapshot',
      ${JSON.stringify(payload)}::json,
      queue_name := ${snapshotQueueName(campaignId)},
      job_key := ${`apply_snapshot:${snapshotId}`},
      max_attempts := 10
    )`.execute(db);
  const id = rows[0]?.id;
  if (id === undefined) throw new Error("add_job returned no job");
  return String(id);
};

export interface SnapshotState {
  readonly status: string;
  readonly core_applied: boolean;
  readonly counts: Record<string, number> | null;
  readonly failure: {
    readonly code: string;
    readonly message: string;
    readonly errors: ReadonlyArray<{ row_index: number; field: string; reason: string }>;
    readonly error_count: number;
    readonly errors_omitted: number;
  } | null;
  readonly warnings: ReadonlyArray<{ row_index: number; code: string; field: string; message: string }> | null;
  readonly warning_count: number;
  readonly warnings_omitted: number;
  readonly completed_at: Date | null;
}

export const snapshotState = async (db: Kysely<Database>, id: number): Promise<SnapshotState> => {
  const { rows } = await sql<SnapshotState>`
    select status, core_applied, counts, failure, warnings, warning_count, warnings_omitted, completed_at
    from snapshots where id = ${id}`.execute(db);
  const row = rows[0];
  if (row === undefined) throw new Error(`no snapshot ${id}`);
  return row;
};

export interface DebtState {
  readonly id: number;
  readonly internal_id: string | null;
  readonly invoice_reference: string | null;
  readonly amount_minor: number;
  readonly balance_minor: number;
  readonly amount_text: string;
  readonly currency: string;
  readonly status: string;
  readonly firstname: string | null;
  readonly lastname: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  readonly creditor_id: number;
  readonly timeline_id: number | null;
  readonly import_date: Date;
  readonly updated_at: Date;
}

/** The campaign's debts in id order. */
export const debtsOf = async (db: Kysely<Database>, campaignId: number): Promise<Array<DebtState>> =>
  (
    await sql<DebtState>`
      select id, internal_id, invoice_reference, amount_minor, balance_minor, amount_text, currency, status,
        firstname, lastname, email, phone, creditor_id, timeline_id, import_date, updated_at
      from debts where campaign_id = ${campaignId} order by id`.execute(db)
  ).rows;

/** One debt by its internal id (or invoice reference), failing when absent. */
export const debtBy = (debts: ReadonlyArray<DebtState>, key: string): DebtState => {
  const debt = debts.find(
    (candidate) =>
      candidate.internal_id === key || (candidate.internal_id === null && candidate.invoice_reference === key),
  );
  if (debt === undefined) throw new Error(`no debt ${key}`);
  return debt;
};

export interface PaymentState {
  readonly debt_id: number;
  readonly installment_id: number | null;
  readonly integration_client_pk: number | null;
  readonly snapshot_id: number | null;
  readonly external_payment_id: string | null;
  readonly provider: string;
  readonly kind: string;
  readonly amount_minor: number;
  readonly currency: string;
  readonly status: string;
  readonly paid_at: Date;
}

export const paymentsOf = async (db: Kysely<Database>, debtId: number): Promise<Array<PaymentState>> =>
  (
    await sql<PaymentState>`
      select debt_id, installment_id, integration_client_pk, snapshot_id, external_payment_id, provider, kind,
        amount_minor, currency, status, paid_at
      from payments where debt_id = ${debtId} order by kind, external_payment_id, amount_minor`.execute(db)
  ).rows;

export interface PlanState {
  readonly id: number;
  readonly external_reference: string | null;
  readonly status: string;
  readonly source: string;
  readonly start_date: string | null;
  readonly ended_at: Date | null;
  readonly installments: ReadonlyArray<{
    id: number;
    position: number;
    external_reference: string | null;
    amount_minor: number;
    payment_date: string;
    status: string;
    paid_at: string | null;
    external_payment_id: string | null;
  }>;
}

/** Every plan of a debt (oldest first) with its installments in position order. */
export const plansOf = async (db: Kysely<Database>, debtId: number): Promise<Array<PlanState>> =>
  (
    await sql<PlanState>`
      select p.id, p.external_reference, p.status, p.source, p.start_date, p.ended_at,
        coalesce((
          select json_agg(json_build_object(
            'id', i.id, 'position', i.position, 'external_reference', i.external_reference,
            'amount_minor', i.amount_minor, 'payment_date', i.payment_date, 'status', i.status,
            'paid_at', to_char(i.paid_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
            'external_payment_id', i.external_payment_id) order by i.position)
          from installments i where i.payment_plan_id = p.id), '[]') as installments
      from payment_plans p where p.debt_id = ${debtId} order by p.id`.execute(db)
  ).rows;

/**
 * Debts of the company whose ledger does not balance: amount - sum(payments)
 * differs from the balance (exact: bigint and numeric arithmetic).
 */
export const ledgerViolations = async (
  db: Kysely<Database>,
  companyId: number,
): Promise<Array<{ id: number; amount_minor: number; paid: string; balance_minor: number }>> =>
  (
    await sql<{ id: number; amount_minor: number; paid: string; balance_minor: number }>`
      select d.id, d.amount_minor, coalesce(sum(p.amount_minor), 0)::text as paid, d.balance_minor
      from debts d left join payments p on p.company_id = d.company_id and p.debt_id = d.id
      where d.company_id = ${companyId}
      group by d.company_id, d.id
      having d.amount_minor::numeric - coalesce(sum(p.amount_minor), 0) <> d.balance_minor::numeric`.execute(db)
  ).rows;

/** A fingerprint of every debt, plan, installment and payment of a company: equal fingerprints, equal data. */
export const fingerprint = async (db: Kysely<Database>, companyId: number): Promise<string> => {
  const { rows } = await sql<{ fingerprint: string }>`
    select concat_ws('|',
      (select md5(coalesce(string_agg(d::text, ',' order by d.id), '')) from debts d where d.company_id = ${companyId}),
      (select md5(coalesce(string_agg(p::text, ',' order by p.id), '')) from payment_plans p where p.company_id = ${companyId}),
      (select md5(coalesce(string_agg(i::text, ',' order by i.id), '')) from installments i where i.company_id = ${companyId}),
      (select md5(coalesce(string_agg(p::text, ',' order by p.id), '')) from payments p where p.company_id = ${companyId})
    ) as fingerprint`.execute(db);
  return rows[0]?.fingerprint ?? "";
};

/** An account-balance snapshot row (identity `internal_id`, EUR), with any extra fields. */
export const accountRow = (internalId: string, remaining: number, extra: Record<string, unknown> = {}) => ({
  internal_id: internalId,
  remaining_amount: remaining,
  currency: "EUR",
  ...extra,
});
