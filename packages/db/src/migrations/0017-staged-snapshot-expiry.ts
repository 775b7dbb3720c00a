/**
 * Staged snapshots left `uploading` expire (docs/decisions/0022). The hourly
 * purge finds them through a partial index holding only the snapshots still
 * `uploading`, so its cost follows the open uploads, not every snapshot ever
 * received. It is keyed on `id`, which never changes, and not on
 * `updated_at`: a chunk's update of the counters and `updated_at` then stays
 * a heap-only update (no new entry in any index of `snapshots`); the purge
 * reads `updated_at` from the few open uploads' rows.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`create index snapshots_uploading_idx on snapshots (id) where status = 'uploading'`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop index if exists snapshots_uploading_idx`.execute(db);
};
