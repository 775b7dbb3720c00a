/**
 * Every change of a snapshot's `status` is announced on the `snapshot_status`
 * channel, with the snapshot's id as payload (docs/decisions/0307): the api
 * answers a status read that asked to wait (`Prefer: wait`) as soon as the
 * worker's transaction that settles the snapshot commits. A notification is
 * delivered at commit, so a listener that reads the row then sees the new
 * status. One trigger covers every path that moves a status (the worker's
 * apply and failure, a staged snapshot's finalize in the api); updates that
 * leave the status as it was (chunk counters) announce nothing.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
create function snapshots_announce_status() returns trigger language plpgsql as $$
begin
  perform pg_notify('snapshot_status', new.id::text);
  return null;
end $$;
create trigger snapshots_status_announced after update of status on snapshots
  for each row when (old.status is distinct from new.status)
  execute function snapshots_announce_status();
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
drop trigger if exists snapshots_status_announced on snapshots;
drop function if exists snapshots_announce_status();
`.execute(db);
};
