/**
 * The company (and integration) references of the ledger tables are checked
 * once per statement instead of once per row (docs/decisions/0361).
 *
 * A foreign key runs one lookup per inserted row. A snapshot writes ~20,000
 * payments, 2,000 plans and 4,000 installments of one company in a handful
 * of statements, and the per-row checks of `company_id` (always the same
 * company) and `integration_client_pk` (always the same client) took as long
 * as the inserts themselves. These triggers do what the foreign keys did, per
 * statement over its transition table:
 *
 * - insert or update: the referenced companies and clients are locked
 *   `for key share` (as a foreign-key check locks them, so they cannot be
 *   deleted before the writer commits) and must exist, or the statement fails
 *   with SQLSTATE 23503 (foreign_key_violation);
 * - deleting a company deletes its payments (`on delete cascade`; its plans
 *   and installments already go with its debts); deleting a client clears
 *   `payments.integration_client_pk` (`on delete set null`); a company's or
 *   client's id cannot change while rows reference it.
 *
 * `payment_plans.debt_id` and `installments.payment_plan_id` keep their
 * foreign keys (each row references a different parent).
 */
import { type Kysely, sql } from "kysely";

/**
 * The references these triggers enforce instead of foreign keys, each by
 * the child's columns a delete of the parent looks up (gathered in
 * `src/statement-references.ts`). The plans' and installments' company
 * references are followed through their debts (0013), not by `company_id`.
 */
export const statementReferences = [
  { child: "payments", columns: ["company_id"], parent: "companies" },
  { child: "payment_plans", columns: ["company_id"], parent: "companies" },
  { child: "installments", columns: ["company_id"], parent: "companies" },
  { child: "payments", columns: ["integration_client_pk"], parent: "oauth_clients" },
] as const;

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
create function ledger_check_company_reference() returns trigger language plpgsql as $$
declare
  named bigint[];
  found integer;
begin
  -- One pass over the written rows (one company, typically), then one lookup per distinct company.
  select coalesce(array_agg(distinct company_id), '{}') into named from written;
  select count(*) into found from (select 1 from companies where id = any (named) for key share) locked;
  if found <> cardinality(named) then
    raise foreign_key_violation using
      message = format('%s.company_id references a company that does not exist', tg_table_name),
      table = tg_table_name, column = 'company_id';
  end if;
  return null;
end $$;

create function payments_check_client_reference() returns trigger language plpgsql as $$
declare
  named bigint[];
  found integer;
begin
  select coalesce(array_agg(distinct integration_client_pk) filter (where integration_client_pk is not null), '{}')
    into named from written;
  if cardinality(named) = 0 then
    return null;
  end if;
  select count(*) into found from (select 1 from oauth_clients where id = any (named) for key share) locked;
  if found <> cardinality(named) then
    raise foreign_key_violation using
      message = 'payments.integration_client_pk references an oauth client that does not exist',
      table = 'payments', column = 'integration_client_pk';
  end if;
  return null;
end $$;

alter table payments drop constraint payments_company_id_fkey;
alter table payments drop constraint payments_integration_client_pk_fkey;
alter table payment_plans drop constraint payment_plans_company_id_fkey;
alter table installments drop constraint installments_company_id_fkey;

create trigger payments_company_reference_insert after insert on payments
  referencing new table as written for each statement execute function ledger_check_company_reference();
create trigger payments_company_reference_update after update on payments
  referencing new table as written for each statement execute function ledger_check_company_reference();
create trigger payments_client_reference_insert after insert on payments
  referencing new table as written for each statement execute function payments_check_client_reference();
create trigger payments_client_reference_update after update on payments
  referencing new table as written for each statement execute function payments_check_client_reference();
create trigger payment_plans_company_reference_insert after insert on payment_plans
  referencing new table as written for each statement execute function ledger_check_company_reference();
create trigger payment_plans_company_reference_update after update on payment_plans
  referencing new table as written for each statement execute function ledger_check_company_reference();
create trigger installments_company_reference_insert after insert on installments
  referencing new table as written for each statement execute function ledger_check_company_reference();
create trigger installments_company_reference_update after update on installments
  referencing new table as written for each statement execute function ledger_check_company_reference();

create function companies_delete_payments() returns trigger language plpgsql as $$
begin
  delete from payments where company_id in (select id from removed);
  return null;
end $$;
create trigger companies_payments_cascade after delete on companies
  referencing old table as removed for each statement execute function companies_delete_payments();

create function oauth_clients_release_payments() returns trigger language plpgsql as $$
begin
  update payments set integration_client_pk = null where integration_client_pk in (select id from removed);
  return null;
end $$;
create trigger oauth_clients_payments_set_null after delete on oauth_clients
  referencing old table as removed for each statement execute function oauth_clients_release_payments();

create function parent_key_is_fixed() returns trigger language plpgsql as $$
begin
  if new.id is distinct from old.id then
    raise foreign_key_violation using
      message = format('the id of %s %s cannot change: other rows reference it', tg_table_name, old.id),
      table = tg_table_name, column = 'id';
  end if;
  return new;
end $$;
create trigger companies_key_is_fixed before update of id on companies
  for each row execute function parent_key_is_fixed();
create trigger oauth_clients_key_is_fixed before update of id on oauth_clients
  for each row execute function parent_key_is_fixed();
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
drop trigger if exists companies_key_is_fixed on companies;
drop trigger if exists oauth_clients_key_is_fixed on oauth_clients;
drop trigger if exists oauth_clients_payments_set_null on oauth_clients;
drop trigger if exists companies_payments_cascade on companies;
drop trigger if exists payments_company_reference_insert on payments;
drop trigger if exists payments_company_reference_update on payments;
drop trigger if exists payments_client_reference_insert on payments;
drop trigger if exists payments_client_reference_update on payments;
drop trigger if exists payment_plans_company_reference_insert on payment_plans;
drop trigger if exists payment_plans_company_reference_update on payment_plans;
drop trigger if exists installments_company_reference_insert on installments;
drop trigger if exists installments_company_reference_update on installments;
drop function if exists parent_key_is_fixed();
drop function if exists oauth_clients_release_payments();
drop function if exists companies_delete_payments();
drop function if exists payments_check_client_reference();
drop function if exists ledger_check_company_reference();
alter table payments add constraint payments_company_id_fkey
  foreign key (company_id) references companies (id) on delete cascade;
alter table payments add constraint payments_integration_client_pk_fkey
  foreign key (integration_client_pk) references oauth_clients (id) on delete set null;
alter table payment_plans add constraint payment_plans_company_id_fkey
  foreign key (company_id) references companies (id) on delete cascade;
alter table installments add constraint installments_company_id_fkey
  foreign key (company_id) references companies (id) on delete cascade;
`.execute(db);
};
