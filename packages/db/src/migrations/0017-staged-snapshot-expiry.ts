/**
 * Staged snapshots left `uploading` expire (docs/decisions/0022). The hourly
 * purge finds them by their last activity (`updated_at`: the start or the
 * last chunk) through a partial index holding only the snapshots still
 * `uploading`, so its cost follows the open uploads, not every snapshot ever
 * received.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`create index snapshots_uploading_idx on snapshots (updated_at) where status = 'uploading'`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop index if exists snapshots_uploading_idx`.execute(db);
};
