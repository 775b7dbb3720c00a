/**
 * What the retention purge needs (docs/decisions/0021).
 *
 * - A settled snapshot's chunk bodies can be purged: `body`, `internal_ids`
 *   and `invoice_references` become null and `body_purged_at` says when. The
 *   chunk keeps its `body_sha256` and `row_count`, which is all an identical
 *   retry compares. A partial index holds the chunks not yet purged, so the
 *   hourly purge starts from them (at most the retention period's chunks)
 *   instead of walking every snapshot ever settled.
 * - A webhook delivery's attempts are deleted with it once per statement,
 *   not by a foreign key's per-row cascade: the purge deletes deliveries by
 *   the thousand, and the cascade ran one query per delivery against an
 *   index whose first column is `company_id`.
 */
import { type Kysely, sql } from "kysely";

/**
 * The reference these triggers enforce instead of a foreign key, by the
 * attempts' columns a delete of a delivery looks up (gathered in
 * `src/statement-references.ts`).
 */
export const statementReferences = [
  { child: "webhook_delivery_attempts", columns: ["company_id", "delivery_id"], parent: "webhook_deliveries" },
] as const;

const attemptViolation = `raise foreign_key_violation using
      message = 'webhook_delivery_attempts.delivery_id references no webhook delivery of the row''s company',
      table = 'webhook_delivery_attempts', column = 'delivery_id';`;

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
alter table snapshot_chunks drop constraint snapshot_chunks_identities_per_row;
alter table snapshot_chunks alter column body drop not null;
alter table snapshot_chunks alter column internal_ids drop not null;
alter table snapshot_chunks alter column invoice_references drop not null;
alter table snapshot_chunks add column body_purged_at timestamptz;
-- Not validated: every existing row already holds it (the constraints dropped above required the first
-- branch), and validating would read back every stored identity array under this migration's lock.
alter table snapshot_chunks add constraint snapshot_chunks_body_or_purged check (
  (body_purged_at is null and body is not null and internal_ids is not null and invoice_references is not null
    and cardinality(internal_ids) = row_count and cardinality(invoice_references) = row_count)
  or (body_purged_at is not null and body is null and internal_ids is null and invoice_references is null)) not valid;
create index snapshot_chunks_unpurged_idx on snapshot_chunks (company_id, snapshot_id) where body_purged_at is null;

alter table webhook_delivery_attempts drop constraint webhook_delivery_attempts_delivery_id_fkey;
create function webhook_delivery_attempts_delivery_id_check() returns trigger language plpgsql
  set enable_seqscan = off set enable_nestloop = on as $$
begin
  perform 1 from webhook_deliveries where id in (select distinct delivery_id from written) for key share;
  if exists (
    select 1 from (select distinct company_id, delivery_id from written) w
    where not exists (select 1 from webhook_deliveries d where d.id = w.delivery_id and d.company_id = w.company_id)
  ) then
    ${sql.raw(attemptViolation)}
  end if;
  return null;
end $$;
create trigger webhook_delivery_attempts_delivery_id_insert after insert on webhook_delivery_attempts
  referencing new table as written for each statement execute function webhook_delivery_attempts_delivery_id_check();
create function webhook_delivery_attempts_delivery_id_check_changed() returns trigger language plpgsql as $$
begin
  perform 1 from webhook_deliveries where id = new.delivery_id and company_id = new.company_id for key share;
  if not found then
    ${sql.raw(attemptViolation)}
  end if;
  return new;
end $$;
create trigger webhook_delivery_attempts_delivery_id_update after update on webhook_delivery_attempts for each row
  when (old.delivery_id is distinct from new.delivery_id or old.company_id is distinct from new.company_id)
  execute function webhook_delivery_attempts_delivery_id_check_changed();
create function webhook_deliveries_release_attempts() returns trigger language plpgsql as $$
begin
  delete from webhook_delivery_attempts a using removed r where a.company_id = r.company_id and a.delivery_id = r.id;
  return null;
end $$;
create trigger webhook_deliveries_attempts_on_delete after delete on webhook_deliveries
  referencing old table as removed for each statement execute function webhook_deliveries_release_attempts();
create trigger webhook_deliveries_key_is_fixed before update of id on webhook_deliveries
  for each row execute function parent_key_is_fixed();
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
drop trigger if exists webhook_deliveries_key_is_fixed on webhook_deliveries;
drop trigger if exists webhook_deliveries_attempts_on_delete on webhook_deliveries;
drop function if exists webhook_deliveries_release_attempts();
drop trigger if exists webhook_delivery_attempts_delivery_id_update on webhook_delivery_attempts;
drop function if exists webhook_delivery_attempts_delivery_id_check_changed();
drop trigger if exists webhook_delivery_attempts_delivery_id_insert on webhook_delivery_attempts;
drop function if exists webhook_delivery_attempts_delivery_id_check();
alter table webhook_delivery_attempts add constraint webhook_delivery_attempts_delivery_id_fkey
  foreign key (delivery_id) references webhook_deliveries (id) on delete cascade;

-- A purged chunk cannot go back to the old shape (its body is gone), and deleting it would lose the digest
-- that answers identical retries: refuse instead.
do $$
begin
  if exists (select 1 from snapshot_chunks where body_purged_at is not null) then
    raise exception 'cannot undo 0016-retention: snapshot chunks whose bodies were purged exist';
  end if;
end $$;
drop index if exists snapshot_chunks_unpurged_idx;
alter table snapshot_chunks drop constraint snapshot_chunks_body_or_purged;
alter table snapshot_chunks drop column body_purged_at;
alter table snapshot_chunks alter column body set not null;
alter table snapshot_chunks alter column internal_ids set not null;
alter table snapshot_chunks alter column invoice_references set not null;
alter table snapshot_chunks add constraint snapshot_chunks_identities_per_row
  check (cardinality(internal_ids) = row_count and cardinality(invoice_references) = row_count);
`.execute(db);
};
