/**
 * Counts an accepted chunk on its snapshot. The update is conditional: the
 * snapshot must still be `uploading`, expect exactly this index next and have
 * room for its rows: within its declared `expected_row_count`, or within
 * `maxRows` while no count is declared. `undefined` means a concurrent request changed the
 * snapshot first (the caller rolls back and answers from the new state).
 */
import type { Kysely } from "kysely";
import type { Database, Snapshot } from "../../schema.ts";

export const recordChunk = (
  db: Kysely<Database>,
  chunk: {
    readonly snapshotId: number;
    readonly companyId: number;
    readonly chunkIndex: number;
    readonly rowCount: number;
    /** The most rows a staged snapshot holds: the bound while its count is undeclared. */
    readonly maxRows: number;
    readonly now: Date;
  },
): Promise<Snapshot | undefined> =>
  db
    .updateTable("snapshots")
    .set((eb) => ({
      next_chunk_index: chunk.chunkIndex + 1,
      received_chunk_count: eb("received_chunk_count", "+", 1),
      received_row_count: eb("received_row_count", "+", chunk.rowCount),
      updated_at: chunk.now,
    }))
    .where("company_id", "=", chunk.companyId)
    .where("id", "=", chunk.snapshotId)
    .where("status", "=", "uploading")
    .where("next_chunk_index", "=", chunk.chunkIndex)
    .where((eb) =>
      eb(
        eb("received_row_count", "+", chunk.rowCount),
        "<=",
        eb.fn.coalesce("expected_row_count", eb.val(chunk.maxRows)),
      ),
    )
    .returningAll()
    .executeTakeFirst();
