/**
 * The retention purge of stored snapshot bodies, one bounded batch per call
 * (docs/decisions/0021): chunks of snapshots settled before their cutoff.
 * Each statement skips rows another transaction holds, so the purge never
 * waits on, nor holds up, the api or an apply.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";

/** What one snapshot-body batch cleared. */
export interface PurgedSnapshotBodies {
  readonly chunks: number;
  /** Bytes of body text cleared. */
  readonly bytes: number;
}

/** One company's part of a body batch, in a statement of its own. */
const purgeCompanySnapshotBodies = async (
  db: Kysely<Database>,
  batch: { readonly cutoff: Date; readonly limit: number; readonly now: Date },
): Promise<PurgedSnapshotBodies> => {
  const settled = (chunk: string) => sql`
      cross join lateral (
        select 1 from snapshots s
        where s.id = ${sql.ref(`${chunk}.snapshot_id`)} and s.company_id = ${sql.ref(`${chunk}.company_id`)}
          and s.status in ('completed', 'failed') and s.completed_at < ${batch.cutoff.toISOString()}::timestamptz
        offset 0
      ) settled`;
  const { rows } = await sql<{ chunks: number; bytes: string }>`
    with company as (
      -- The company of the first purgeable chunk not held by another transaction (locked here, so the
      -- batch below clears at least it): one company per statement (DESIGN.md 6).
      select c.company_id from snapshot_chunks c ${settled("c")}
      where c.body_purged_at is null
      limit 1
      for update of c skip locked
    ), doomed as (
      -- From the company's chunks not yet purged (a partial index: the retention period's chunks), each
      -- snapshot probed by primary key (\`offset 0\` keeps the planner from turning the probe into a join
      -- that walks every snapshot ever settled).
      select c.company_id, c.snapshot_id, c.chunk_index, octet_length(c.body) as bytes from snapshot_chunks c
      ${settled("c")}
      where c.company_id = (select company_id from company) and c.body_purged_at is null
      limit ${batch.limit}
      for update of c skip locked
    ), cleared as (
      update snapshot_chunks c
      set body = null, internal_ids = null, invoice_references = null,
        body_purged_at = ${batch.now.toISOString()}::timestamptz
      from doomed
      where c.company_id = doomed.company_id and c.snapshot_id = doomed.snapshot_id
        and c.chunk_index = doomed.chunk_index
      returning doomed.bytes
    )
    select count(*)::int4 as chunks, coalesce(sum(bytes), 0)::int8 as bytes from cleared
  `.execute(db);
  const row = rows[0];
  return { chunks: row?.chunks ?? 0, bytes: Number(row?.bytes ?? 0) };
};

/**
 * Clears the bodies and identity arrays of up to `limit` chunks of
 * snapshots settled (`completed` or `failed`) before `cutoff`, one company
 * per statement. The chunk rows stay, with the digest and row count an
 * identical retry compares.
 */
export const purgeSnapshotBodiesBatch = async (
  db: Kysely<Database>,
  batch: { readonly cutoff: Date; readonly limit: number; readonly now: Date },
): Promise<PurgedSnapshotBodies> => {
  const total = { chunks: 0, bytes: 0 };
  while (total.chunks < batch.limit) {
    const purged = await purgeCompanySnapshotBodies(db, { ...batch, limit: batch.limit - total.chunks });
    if (purged.chunks === 0) break;
    total.chunks += purged.chunks;
    total.bytes += purged.bytes;
  }
  return total;
};
