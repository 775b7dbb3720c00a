/**
 * Stores one chunk of a snapshot (a one-request snapshot is chunk 0): its
 * body exactly as received and the SHA-256 of the request's exact bytes. The
 * primary key (snapshot_id, chunk_index) decides between concurrent uploads
 * of one index: the loser gets `false` and compares digests.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../schema.ts";

export interface NewChunk {
  readonly snapshotId: number;
  readonly companyId: number;
  readonly chunkIndex: number;
  readonly bodySha256: Buffer;
  readonly rowCount: number;
  /**
   * The request body text, `{"rows": [...]}` and nothing else (the body schema
   * rejects other keys), already validated. Stored as sent: PostgreSQL does
   * not parse it again (docs/decisions/0360).
   */
  readonly bodyText: string;
  readonly now: Date;
}

export const insertChunkUnlessExists = async (db: Kysely<Database>, chunk: NewChunk): Promise<boolean> => {
  const inserted = await db
    .insertInto("snapshot_chunks")
    .values({
      snapshot_id: chunk.snapshotId,
      chunk_index: chunk.chunkIndex,
      company_id: chunk.companyId,
      body_sha256: chunk.bodySha256,
      row_count: chunk.rowCount,
      body: chunk.bodyText,
      created_at: chunk.now,
    })
    .onConflict((conflict) => conflict.columns(["snapshot_id", "chunk_index"]).doNothing())
    .returning("chunk_index")
    .executeTakeFirst();
  return inserted !== undefined;
};
