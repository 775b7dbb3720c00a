/**
 * A chunk's update of its snapshot (counters and `updated_at`) stays a
 * heap-only update: no index of `snapshots` keys or filters on a column it
 * changes. The expiry's partial index (migration 0017) is keyed on `id` for
 * that reason; keyed on `updated_at`, none of these updates stayed in place.
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { recordChunk } from "../src/queries/snapshots/record-chunk.ts";
import { useTestDatabase } from "../../testing/index.ts";

const { db } = await useTestDatabase();

describe("snapshots", () => {
  it("take a chunk's counters and updated_at as heap-only updates", async () => {
    const { rows } = await sql<{ id: number; company_id: number }>`
      with company as (insert into companies (name) values ('Heap only') returning id),
      creditor as (insert into creditors (company_id, name) select id, 'C' from company returning id, company_id),
      timeline as (insert into timelines (company_id, name) select id, 'T' from company returning id),
      campaign as (
        insert into campaigns (company_id, api_reference, name, creditor_id, timeline_id)
        select creditor.company_id, 'heap-only', 'Heap only', creditor.id, timeline.id from creditor, timeline
        returning id, company_id
      )
      insert into snapshots (company_id, campaign_id, snapshot_reference, delivery_mode, status, expected_row_count)
      select company_id, id, 'staged-1', 'staged', 'uploading', 100 from campaign returning id, company_id`.execute(db);
    const snapshotId = Number(rows[0]?.id);
    const companyId = Number(rows[0]?.company_id);
    const chunks = 5;
    const heapOnly = await db.transaction().execute(async (trx) => {
      for (let chunkIndex = 0; chunkIndex < chunks; chunkIndex++) {
        const now = new Date(Date.UTC(2030, 0, 1, 0, chunkIndex));
        // Named with another company, the snapshot is not found: a chunk is counted only on its own company's.
        expect(
          await recordChunk(trx, { snapshotId, companyId: companyId + 1, chunkIndex, rowCount: 10, maxRows: 1_000_000, now }),
        ).toBeUndefined();
        expect(await recordChunk(trx, { snapshotId, companyId, chunkIndex, rowCount: 10, maxRows: 1_000_000, now })).toBeDefined();
      }
      // This transaction's own counts, read before its commit: no statistics collector involved.
      const { rows: counts } = await sql<{ updated: number; hot: number }>`
        select pg_stat_get_xact_tuples_updated('snapshots'::regclass) as updated,
          pg_stat_get_xact_tuples_hot_updated('snapshots'::regclass) as hot`.execute(trx);
      return counts[0];
    });
    expect(heapOnly).toEqual({ updated: chunks, hot: chunks });
  });
});
