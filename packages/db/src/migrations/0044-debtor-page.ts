/**
 * The debtor's page (docs/decisions/0670-0673):
 *
 * - `debtor_requests.content`: what the page recorded beside the debtor's
 *   free text (`message`): a plan proposal's schedule
 *   (`{installments: [{amount_minor, payment_date}]}`), a dispute's reason.
 *   The review queue's migration adds the same column with `if not exists`,
 *   so either order leaves one column.
 * - `debtor_preferences`: the quiet hours a debtor chose on the page for a
 *   debt, which the compliance guard adds to the company's. Refused channels
 *   are `channel_opt_outs` rows (source `debtor_page`).
 */
import { type Kysely, sql } from "kysely";

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`alter table debtor_requests add column if not exists content jsonb not null default '{}'::jsonb`.execute(db);
  await sql`
    create table debtor_preferences (
      company_id bigint not null references companies (id) on delete cascade,
      debt_id bigint not null,
      quiet_start text not null check (quiet_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
      quiet_end text not null check (quiet_end ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
      updated_at timestamptz not null default now(),
      primary key (company_id, debt_id),
      foreign key (company_id, debt_id) references debts (company_id, id) on delete cascade
    )
  `.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop table if exists debtor_preferences`.execute(db);
};
