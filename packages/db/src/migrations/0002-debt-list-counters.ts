/**
 * Cheap debt-list totals and API debt identity (docs/decisions/0100, 0106).
 *
 * - `creditor_debt_stats`: debt count, amount and remaining balance per
 *   (company, creditor, currency, status), kept exact by statement-level
 *   triggers on `debts` (transition tables: one aggregated upsert per
 *   statement, so a 20,000-row snapshot insert costs one upsert per key, and
 *   every writer, the api and the snapshot worker alike, maintains it).
 *   Unfiltered, status- and currency-filtered list totals and the creditor's
 *   `totalDebts` / `totalAmount` read it instead of counting rows.
 * - The list indexes of 0001 are rebuilt with every filter column included
 *   (status, currency, amount, internal_id, amount_text), so choosing a page,
 *   however deep and whatever the filters, and counting a filtered set are
 *   index-only walks.
 * - `internal_id` is unique per creditor among debts created through the api
 *   (campaign debts keep the per-campaign identity of 0001).
 */
import { type Kysely, sql } from "kysely";

/**
 * The three trigger functions that keep the counters (one upsert of the
 * statement's aggregated rows each). Migration 0014 replaces them, and its
 * down migration restores these.
 */
export const counterTriggerFunctions = `
create or replace function creditor_debt_stats_after_insert() returns trigger language plpgsql as $$
begin
  insert into creditor_debt_stats as s (company_id, creditor_id, currency, status, debt_count, amount_minor, balance_minor)
  select company_id, creditor_id, currency, status, count(*), sum(amount_minor), sum(balance_minor)
  from debts_stats_new
  group by company_id, creditor_id, currency, status
  order by company_id, creditor_id, currency, status
  on conflict (company_id, creditor_id, currency, status) do update set
    debt_count = s.debt_count + excluded.debt_count,
    amount_minor = s.amount_minor + excluded.amount_minor,
    balance_minor = s.balance_minor + excluded.balance_minor;
  return null;
end
$$;

create or replace function creditor_debt_stats_after_delete() returns trigger language plpgsql as $$
begin
  update creditor_debt_stats s set
    debt_count = s.debt_count - d.n,
    amount_minor = s.amount_minor - d.amount_minor,
    balance_minor = s.balance_minor - d.balance_minor
  from (
    select company_id, creditor_id, currency, status, count(*) as n, sum(amount_minor) as amount_minor,
      sum(balance_minor) as balance_minor
    from debts_stats_old
    group by company_id, creditor_id, currency, status
  ) d
  where s.company_id = d.company_id and s.creditor_id = d.creditor_id and s.currency = d.currency and s.status = d.status;
  return null;
end
$$;

create or replace function creditor_debt_stats_after_update() returns trigger language plpgsql as $$
begin
  insert into creditor_debt_stats as s (company_id, creditor_id, currency, status, debt_count, amount_minor, balance_minor)
  select company_id, creditor_id, currency, status, sum(n), sum(amount_minor), sum(balance_minor)
  from (
    select company_id, creditor_id, currency, status, 1 as n, amount_minor, balance_minor from debts_stats_new
    union all
    select company_id, creditor_id, currency, status, -1, -amount_minor, -balance_minor from debts_stats_old
  ) as delta
  group by company_id, creditor_id, currency, status
  having sum(n) <> 0 or sum(amount_minor) <> 0 or sum(balance_minor) <> 0
  order by company_id, creditor_id, currency, status
  on conflict (company_id, creditor_id, currency, status) do update set
    debt_count = s.debt_count + excluded.debt_count,
    amount_minor = s.amount_minor + excluded.amount_minor,
    balance_minor = s.balance_minor + excluded.balance_minor;
  return null;
end
$$;
`;

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
create table creditor_debt_stats (
  company_id bigint not null references companies (id) on delete cascade,
  creditor_id bigint not null references creditors (id) on delete cascade,
  currency char(3) not null,
  status text not null,
  debt_count bigint not null default 0,
  amount_minor numeric not null default 0,
  balance_minor numeric not null default 0,
  primary key (company_id, creditor_id, currency, status)
);

${sql.raw(counterTriggerFunctions)}
-- Transition tables are per event, hence one trigger (and function) per event.
create trigger debts_stats_insert after insert on debts
  referencing new table as debts_stats_new
  for each statement execute function creditor_debt_stats_after_insert();
create trigger debts_stats_delete after delete on debts
  referencing old table as debts_stats_old
  for each statement execute function creditor_debt_stats_after_delete();
create trigger debts_stats_update after update on debts
  referencing old table as debts_stats_old new table as debts_stats_new
  for each statement execute function creditor_debt_stats_after_update();

insert into creditor_debt_stats (company_id, creditor_id, currency, status, debt_count, amount_minor, balance_minor)
select company_id, creditor_id, currency, status, count(*), sum(amount_minor), sum(balance_minor)
from debts group by company_id, creditor_id, currency, status;

drop index debts_creditor_created_idx;
create index debts_creditor_created_idx on debts (company_id, creditor_id, created_at desc, id desc)
  include (status, currency, amount_minor, internal_id, amount_text);
drop index debts_company_created_idx;
create index debts_company_created_idx on debts (company_id, created_at desc, id desc)
  include (creditor_id, status, currency, amount_minor, internal_id, amount_text);

create unique index debts_api_internal_id_key on debts (company_id, creditor_id, internal_id)
  where campaign_id is null and internal_id is not null;
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
drop index if exists debts_api_internal_id_key;
drop index if exists debts_company_created_idx;
create index debts_company_created_idx on debts (company_id, created_at desc, id desc);
drop index if exists debts_creditor_created_idx;
create index debts_creditor_created_idx on debts (company_id, creditor_id, created_at desc, id desc);
drop trigger if exists debts_stats_insert on debts;
drop trigger if exists debts_stats_delete on debts;
drop trigger if exists debts_stats_update on debts;
drop function if exists creditor_debt_stats_after_insert();
drop function if exists creditor_debt_stats_after_delete();
drop function if exists creditor_debt_stats_after_update();
drop table if exists creditor_debt_stats;
`.execute(db);
};
