/**
 * The savepoint a snapshot's application takes before its first batch
 * writes (docs/decisions/0691): an invalid row found in a later chunk rolls
 * every batch back to it, and the application goes on checking the rest
 * without writing. The tables staged before it (matched-debts.ts) stay.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";

const SAVEPOINT = "snapshot_batches";

/** Marks the point the batches can be undone to. */
export const beginSnapshotBatches = async (trx: Kysely<Database>): Promise<void> => {
  await sql`savepoint ${sql.raw(SAVEPOINT)}`.execute(trx);
};

/** Undoes everything written since `beginSnapshotBatches`; the transaction goes on. */
export const undoSnapshotBatches = async (trx: Kysely<Database>): Promise<void> => {
  await sql`rollback to savepoint ${sql.raw(SAVEPOINT)}`.execute(trx);
};
