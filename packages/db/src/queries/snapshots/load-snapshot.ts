/**
 * The reads of a snapshot's application: the snapshot row and its
 * campaign, both locked for the transaction, and the stored chunks, one at
 * a time.
 * The snapshot lock makes applying idempotent (a second run waits, then sees
 * `completed`); the campaign lock keeps two snapshots of one campaign from
 * being planned against the same state, whatever the queue does.
 */
import { type Kysely, sql } from "kysely";
import type { Database, SnapshotsTable } from "../../schema.ts";
import type { SnapshotRowKey } from "./mark-snapshot.ts";

/**
 * Runs `work` (a statement joining over a whole campaign) with nested-loop
 * joins disabled, then restores the default for the rest of the
 * transaction (docs/decisions/0363). The statistics of a campaign's debts
 * lag far behind it: a new campaign's 20,000 debts are 2% of a million-row
 * table, below autovacuum's analyze threshold, so PostgreSQL keeps
 * estimating one row for them and nested-loops joins that are quadratic at
 * the campaign's real size. Hash joins are linear whatever the estimates.
 * The batches' update of the debts is the exception: it probes the primary
 * key per change (update-debts.ts, `withPlannerSettings`).
 */
export const withWholeCampaignJoins = async <T>(trx: Kysely<Database>, work: () => Promise<T>): Promise<T> => {
  await sql`set local enable_nestloop = off`.execute(trx);
  const result = await work();
  await sql`set local enable_nestloop to default`.execute(trx);
  return result;
};

/** The snapshot columns applying needs. */
export interface SnapshotToApply {
  readonly id: number;
  readonly company_id: number;
  readonly campaign_id: number;
  readonly status: SnapshotsTable["status"];
  readonly integration_client_pk: number | null;
  readonly received_chunk_count: number;
}

/**
 * Locks the snapshot (`for update`) until the end of the transaction and
 * returns it, or `undefined` when the company has no such snapshot.
 */
export const lockSnapshot = async (
  trx: Kysely<Database>,
  snapshot: SnapshotRowKey,
): Promise<SnapshotToApply | undefined> => {
  const { rows } = await sql<SnapshotToApply>`
    select id, company_id, campaign_id, status, integration_client_pk, received_chunk_count
    from snapshots where company_id = ${snapshot.companyId} and id = ${snapshot.id}
    for update
  `.execute(trx);
  return rows[0];
};

/** Campaign settings that shape the debts a snapshot creates and the planner's configuration. */
export interface CampaignToApply {
  readonly id: number;
  readonly creditor_id: number;
  readonly timeline_id: number;
  readonly allow_expensive_destinations: boolean;
}

/**
 * Locks the campaign (`for no key update`: debts and snapshots may still
 * reference it, only another applier waits) and returns its settings.
 */
export const lockCampaign = async (
  trx: Kysely<Database>,
  companyId: number,
  campaignId: number,
): Promise<CampaignToApply | undefined> => {
  const { rows } = await sql<CampaignToApply>`
    select id, creditor_id, timeline_id, allow_expensive_destinations
    from campaigns where company_id = ${companyId} and id = ${campaignId}
    for no key update
  `.execute(trx);
  return rows[0];
};

/** One stored chunk: `body` is the request body as received, `{"rows": [...]}`. */
export interface StoredChunk {
  readonly chunk_index: number;
  /** Null once the retention purge cleared it, which it does only to settled snapshots (docs/decisions/0021). */
  readonly body: string | null;
}

/**
 * Every chunk of the snapshot at once, in `chunk_index` order: for tests
 * and tools. The worker reads one chunk at a time (`loadSnapshotChunk`).
 */
export const loadSnapshotChunks = async (
  trx: Kysely<Database>,
  companyId: number,
  snapshotId: number,
): Promise<ReadonlyArray<StoredChunk>> => {
  const { rows } = await sql<StoredChunk>`
    select chunk_index, body from snapshot_chunks
    where company_id = ${companyId} and snapshot_id = ${snapshotId}
    order by chunk_index
  `.execute(trx);
  return rows;
};

/** The number of chunks stored for the snapshot. */
export const countSnapshotChunks = async (
  trx: Kysely<Database>,
  companyId: number,
  snapshotId: number,
): Promise<number> => {
  const { rows } = await sql<{ count: number }>`
    select count(*)::int as count from snapshot_chunks where company_id = ${companyId} and snapshot_id = ${snapshotId}
  `.execute(trx);
  return rows[0]?.count ?? 0;
};

/** One stored chunk of the snapshot, or `undefined` when it has none at that index. */
export const loadSnapshotChunk = async (
  trx: Kysely<Database>,
  companyId: number,
  snapshotId: number,
  chunkIndex: number,
): Promise<StoredChunk | undefined> => {
  const { rows } = await sql<StoredChunk>`
    select chunk_index, body from snapshot_chunks
    where company_id = ${companyId} and snapshot_id = ${snapshotId} and chunk_index = ${chunkIndex}
  `.execute(trx);
  return rows[0];
};
