/**
 * Stores one chunk of a snapshot (a one-request snapshot is chunk 0): its
 * rows exactly as received and the SHA-256 of the request's exact bytes. The
 * primary key (snapshot_id, chunk_index) decides between concurrent uploads
 * of one index: the loser gets `false` and compares digests.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";

export interface NewChunk {
  readonly snapshotId: number;
  readonly companyId: number;
  readonly chunkIndex: number;
  readonly bodySha256: Buffer;
  readonly rowCount: number;
  /**
   * The request body text, `{"rows": [...]}` and nothing else (the body schema
   * rejects other keys). PostgreSQL parses it once and keeps `rows`, so the
   * rows are stored as sent, never re-serialised by the api.
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
      rows: sql<string>`(${chunk.bodyText}::jsonb) -> 'rows'`,
      created_at: chunk.now,
    })
    .onConflict((conflict) => conflict.columns(["snapshot_id", "chunk_index"]).doNothing())
    .returning("chunk_index")
    .executeTakeFirst();
  return inserted !== undefined;
};
