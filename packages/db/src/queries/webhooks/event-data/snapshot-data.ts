/**
 * `data` of `snapshot.completed` and `snapshot.failed`: the snapshot
 * acknowledgement (contract 2.8) as the status resource returns it. Read it
 * after marking the snapshot, in the same transaction.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../../schema.ts";

const API_PREFIX = "/external-api/v1";

/** One snapshot's event data, with the company it belongs to. */
export interface SnapshotEventData {
  readonly companyId: number;
  readonly snapshotId: number;
  readonly data: Record<string, unknown>;
}

const readSnapshots = (
  db: Kysely<Database>,
  filter: { readonly ids: ReadonlyArray<number>; readonly companyId: number },
) => {
  const query = db
    .selectFrom("snapshots as s")
    .innerJoin("campaigns as c", (join) =>
      join.onRef("c.id", "=", "s.campaign_id").onRef("c.company_id", "=", "s.company_id"),
    )
    .selectAll("s")
    .select("c.api_reference")
    .where("s.company_id", "=", filter.companyId)
    .where("s.id", "in", filter.ids)
    .orderBy("s.id");
  return query.execute();
};

type SnapshotRow = Awaited<ReturnType<typeof readSnapshots>>[number];

const eventData = (row: SnapshotRow): Record<string, unknown> => ({
  api_reference: row.api_reference,
  snapshot_reference: row.snapshot_reference,
  delivery_mode: row.delivery_mode,
  status: row.status,
  core_applied: row.core_applied,
  // Undeclared only on a snapshot opened by its chunk 0 that expired: its rows are all it declared.
  expected_row_count: row.expected_row_count ?? row.received_row_count,
  received_row_count: row.received_row_count,
  received_chunk_count: row.received_chunk_count,
  next_chunk_index: row.next_chunk_index,
  counts: row.counts ?? null,
  failure: row.failure ?? null,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
  status_url: `${API_PREFIX}/campaigns/${encodeURIComponent(row.api_reference)}/snapshots/${encodeURIComponent(row.snapshot_reference)}`,
  ...(row.status === "completed"
    ? { warnings: row.warnings ?? [], warning_count: row.warning_count, warnings_omitted: row.warnings_omitted }
    : {}),
});

/** The acknowledgement of snapshot `snapshotId` of `companyId`, or undefined when there is none. */
export const snapshotEventData = async (
  db: Kysely<Database>,
  companyId: number,
  snapshotId: number,
): Promise<Record<string, unknown> | undefined> => {
  const [row] = await readSnapshots(db, { ids: [snapshotId], companyId });
  return row === undefined ? undefined : eventData(row);
};

/** The acknowledgements of the snapshots `ids` of `companyId`, in one read (ids not found are left out). */
export const snapshotsEventData = async (
  db: Kysely<Database>,
  companyId: number,
  ids: ReadonlyArray<number>,
): Promise<ReadonlyArray<SnapshotEventData>> => {
  if (ids.length === 0) return [];
  const rows = await readSnapshots(db, { ids, companyId });
  return rows.map((row) => ({ companyId: row.company_id, snapshotId: row.id, data: eventData(row) }));
};
