/**
 * What collection e-mails bring back (docs/decisions/0655-0659): addresses
 * that bounced for good or complained, which the engine no longer writes
 * to (one row per company and address, lower case); the clicks of tracked
 * links, which mark the followup that preceded a payment
 * (`triggered_payment`); and, per followup, whether an automated fetch (an
 * image proxy, a link scanner) has already been counted once. A click's
 * only foreign key is its followup's, which also proves its company
 * (decision 0600 keeps the engine's rows the same way).
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    create table email_undeliverable_addresses (
      company_id bigint not null references companies (id) on delete cascade,
      address text not null check (address = lower(address)),
      kind text not null check (kind in ('bounce', 'complaint')),
      source text not null,
      detail text,
      recorded_at timestamptz not null default now(),
      primary key (company_id, address)
    )
  `.execute(db);
  await sql`
    create table email_clicks (
      company_id bigint not null,
      followup_id bigint not null,
      debt_id bigint not null,
      clicked_at timestamptz not null,
      primary key (company_id, followup_id, clicked_at),
      foreign key (company_id, followup_id) references followups (company_id, id) on delete cascade
    )
  `.execute(db);
  await sql`create index email_clicks_debt_idx on email_clicks (company_id, debt_id, clicked_at)`.execute(db);
  await sql`
    alter table followups
      add column email_automated_open boolean not null default false,
      add column email_automated_click boolean not null default false
  `.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    alter table followups drop column if exists email_automated_open, drop column if exists email_automated_click
  `.execute(db);
  await sql`drop table if exists email_clicks, email_undeliverable_addresses`.execute(db);
};
