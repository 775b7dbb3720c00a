/**
 * A dispute's attachment (docs/decisions/0674) is a stored object of its
 * debtor request: an object belongs to exactly one followup (a letter's PDF)
 * or one debtor request, goes with it (cascade), and a request has at most
 * one. `file_name` is the name the debtor's browser gave, kept for the
 * company's download.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    alter table stored_objects
      alter column followup_id drop not null,
      add column debtor_request_id bigint,
      add column file_name text,
      add constraint stored_objects_debtor_request_fkey foreign key (company_id, debtor_request_id)
        references debtor_requests (company_id, id) on delete cascade,
      add constraint stored_objects_one_owner check (num_nonnulls(followup_id, debtor_request_id) = 1),
      add constraint stored_objects_file_name check ((file_name is null) = (debtor_request_id is null))
  `.execute(db);
  await sql`
    create unique index stored_objects_debtor_request_idx on stored_objects (company_id, debtor_request_id)
    where debtor_request_id is not null
  `.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`delete from stored_objects where debtor_request_id is not null`.execute(db);
  await sql`drop index if exists stored_objects_debtor_request_idx`.execute(db);
  await sql`
    alter table stored_objects
      drop constraint if exists stored_objects_file_name,
      drop constraint if exists stored_objects_one_owner,
      drop constraint if exists stored_objects_debtor_request_fkey,
      drop column if exists file_name,
      drop column if exists debtor_request_id,
      alter column followup_id set not null
  `.execute(db);
};
