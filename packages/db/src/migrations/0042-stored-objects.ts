/**
 * Objects the platform stores itself (docs/decisions/0650): the PDF of each
 * letter a followup sent, kept so `pdf_url` serves exactly what was printed.
 * A followup's `pdf_object_key` names its object by `key` within the
 * company; an object goes with its followup, whose key also proves the
 * company (docs/decisions/0600).
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    create table stored_objects (
      company_id bigint not null,
      key text not null,
      followup_id bigint not null,
      content_type text not null,
      body bytea not null,
      created_at timestamptz not null default now(),
      primary key (company_id, key),
      foreign key (company_id, followup_id) references followups (company_id, id) on delete cascade
    )
  `.execute(db);
  await sql`create index stored_objects_followup_idx on stored_objects (company_id, followup_id)`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop table if exists stored_objects`.execute(db);
};
