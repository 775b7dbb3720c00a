/**
 * Stores one chunk of a snapshot (a one-request snapshot is chunk 0): its
 * body exactly as received and the SHA-256 of the request's exact bytes. The
 * primary key (company_id, snapshot_id, chunk_index) decides between concurrent uploads
 * of one index: the loser gets `false` and compares digests.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../schema.ts";
import { textArray } from "../array-literals.ts";

export interface NewChunk {
  readonly snapshotId: number;
  readonly companyId: number;
  readonly chunkIndex: number;
  readonly bodySha256: Buffer;
  /** The body's rows, as parsed: their identity keys are stored beside the body. */
  readonly rows: ReadonlyArray<unknown>;
  /**
   * The request body text, `{"rows": [...]}` and nothing else (the body schema
   * rejects other keys), already validated. Stored as sent: PostgreSQL does
   * not parse it again (docs/decisions/0360).
   */
  readonly bodyText: string;
  readonly now: Date;
}

/** A row's key as PostgreSQL's `->>` reads it: the string itself, null when absent or null, else its JSON. */
const keyText = (row: unknown, key: string): string | null => {
  const value = typeof row === "object" && row !== null ? (row as Record<string, unknown>)[key] : undefined;
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : JSON.stringify(value);
};

/** The `internal_ids` and `invoice_references` columns of a chunk holding `rows`. */
export const chunkIdentityColumns = (rows: ReadonlyArray<unknown>) => ({
  internal_ids: textArray(rows.map((row) => keyText(row, "internal_id"))),
  invoice_references: textArray(rows.map((row) => keyText(row, "invoice_reference"))),
});

export const insertChunkUnlessExists = async (db: Kysely<Database>, chunk: NewChunk): Promise<boolean> => {
  const inserted = await db
    .insertInto("snapshot_chunks")
    .values({
      snapshot_id: chunk.snapshotId,
      chunk_index: chunk.chunkIndex,
      company_id: chunk.companyId,
      body_sha256: chunk.bodySha256,
      row_count: chunk.rows.length,
      body: chunk.bodyText,
      ...chunkIdentityColumns(chunk.rows),
      created_at: chunk.now,
    })
    .onConflict((conflict) => conflict.columns(["company_id", "snapshot_id", "chunk_index"]).doNothing())
    .returning("chunk_index")
    .executeTakeFirst();
  return inserted !== undefined;
};
