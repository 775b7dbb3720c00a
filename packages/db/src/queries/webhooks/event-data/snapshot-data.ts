/**
 * `data` of `snapshot.completed` and `snapshot.failed`: the snapshot
 * acknowledgement (contract 2.8) as the status resource returns it. Read it
 * after marking the snapshot, in the same transaction.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../../schema.ts";

const API_PREFIX = "/external-api/v1";

/** The acknowledgement of snapshot `snapshotId` of `companyId`, or undefined when there is none. */
export const snapshotEventData = async (
  db: Kysely<Database>,
  companyId: number,
  snapshotId: number,
): Promise<Record<string, unknown> | undefined> => {
  const row = await db
    .selectFrom("snapshots as s")
    .innerJoin("campaigns as c", (join) => join.onRef("c.id", "=", "s.campaign_id").onRef("c.company_id", "=", "s.company_id"))
    .selectAll("s")
    .select("c.api_reference")
    .where("s.company_id", "=", companyId)
    .where("s.id", "=", snapshotId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    api_reference: row.api_reference,
    snapshot_reference: row.snapshot_reference,
    delivery_mode: row.delivery_mode,
    status: row.status,
    core_applied: row.core_applied,
    expected_row_count: row.expected_row_count,
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
  };
};
