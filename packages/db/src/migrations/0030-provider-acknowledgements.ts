/**
 * The acknowledgements channel providers gave our sends, recorded as soon as
 * they arrive (docs/decisions/0617). A provider that cannot be asked later
 * what it received (SMTP) is reconciled after a crash from this record: an
 * acknowledged send is `sent`, any other is failed without a resend. One row
 * per send, keyed by its idempotency key within the company; it goes with
 * its followup.
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    create table provider_acknowledgements (
      company_id bigint not null references companies (id) on delete cascade,
      idempotency_key text not null,
      followup_id bigint not null,
      channel text not null,
      provider_message_id text not null,
      response text,
      acknowledged_at timestamptz not null default now(),
      primary key (company_id, idempotency_key),
      foreign key (company_id, followup_id) references followups (company_id, id) on delete cascade
    )
  `.execute(db);
  await sql`
    create index provider_acknowledgements_followup_idx on provider_acknowledgements (company_id, followup_id)
  `.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop table if exists provider_acknowledgements`.execute(db);
};
