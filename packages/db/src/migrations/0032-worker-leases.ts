/**
 * One lease per graphile-worker pool (docs/decisions/0357): the pool renews
 * `renewed_at` every second or so, and another worker takes the pool for dead,
 * and frees its jobs, once the lease is older than the pool's own grace
 * (`grace_seconds`, its `WORKER_STALE_LOCK_SECONDS`). A pool that cannot renew
 * its lease for half that grace stops its process first.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    create table worker_leases (
      pool_id text primary key,
      renewed_at timestamptz not null,
      grace_seconds integer not null check (grace_seconds between 1 and 14400)
    )
  `.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop table if exists worker_leases`.execute(db);
};
