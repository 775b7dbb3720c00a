/**
 * Payment ids, and the public ids of webhook events, are time-ordered UUIDs
 * (version 7) where the server has them (PostgreSQL 18 and later), made by
 * `time_ordered_uuid()`; payments get theirs from the column default
 * (docs/decisions/0365).
 *
 * A snapshot records ~20,000 payments in one statement. With random
 * (version 4) ids each one lands on a random leaf of the primary-key index,
 * so the insert touches pages all over an index that grows with the whole
 * ledger; version 7 ids land together at its right edge, which makes the
 * insert markedly faster on a large table. A webhook-subscribed snapshot records as many events, whose
 * public ids are unique per company.
 *
 * On an older server (which the project does not test against, but which
 * can hold its schema) the default stays `gen_random_uuid()`.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
do $$
begin
  if current_setting('server_version_num')::int >= 180000 then
    execute 'create function time_ordered_uuid() returns uuid language sql volatile parallel safe return uuidv7()';
  else
    execute 'create function time_ordered_uuid() returns uuid language sql volatile parallel safe return gen_random_uuid()';
  end if;
end $$;
alter table payments alter column id set default time_ordered_uuid();
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
alter table payments alter column id drop default;
drop function if exists time_ordered_uuid();
`.execute(db);
};
