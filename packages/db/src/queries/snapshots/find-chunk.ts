/** The digest and size of one stored chunk (never its rows), to answer retries. */
import type { Kysely } from "kysely";
import type { Database } from "../../schema.ts";

export interface ChunkDigest {
  readonly body_sha256: Buffer;
  readonly row_count: number;
}

export const findChunkDigest = (
  db: Kysely<Database>,
  snapshot: { readonly id: number; readonly companyId: number },
  chunkIndex: number,
): Promise<ChunkDigest | undefined> =>
  db
    .selectFrom("snapshot_chunks")
    .select(["body_sha256", "row_count"])
    .where("snapshot_id", "=", snapshot.id)
    .where("company_id", "=", snapshot.companyId)
    .where("chunk_index", "=", chunkIndex)
    .executeTakeFirst();
