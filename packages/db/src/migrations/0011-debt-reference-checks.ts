/**
 * The company, creditor, campaign and timeline of debts are checked once per
 * inserting statement instead of once per row (docs/decisions/0364), and
 * each must belong to the debt's company.
 *
 * Four foreign keys ran four lookups for every created debt, always on the
 * same few parent rows: ~17 µs per debt, 40 ms of a snapshot creating 2,000
 * debts, ~1.4 s of a staged snapshot creating 80,000. Per statement:
 *
 * - insert: the distinct companies, and the distinct (company, creditor),
 *   (company, campaign) and (company, timeline) pairs the new debts name, are
 *   locked `for key share` (as a foreign-key check locks them) and must
 *   exist, or the statement fails with SQLSTATE 23503 and writes nothing. A
 *   creditor, campaign or timeline of another company does not exist for
 *   the debt: tenant consistency the separate foreign keys did not give;
 * - update: only rows whose company, creditor, campaign or timeline changes
 *   are checked, one by one (the `when` clause costs nothing for the
 *   balance and status updates of a snapshot);
 * - deleting a company deletes its debts first (as `on delete cascade`
 *   would); deleting a creditor, campaign or timeline that debts still name
 *   fails (as `no action` would); their ids cannot change.
 *
 * `debtor_id`, `group_id` and `import_id` keep their foreign keys: they are
 * null for snapshot debts, where a check costs nothing.
 */
import { type Kysely, sql } from "kysely";

/** The parents a debt names within its company. */
const companyParents = [
  { table: "creditors", column: "creditor_id", noun: "creditor" },
  { table: "campaigns", column: "campaign_id", noun: "campaign" },
  { table: "timelines", column: "timeline_id", noun: "timeline" },
] as const;
type CompanyParent = (typeof companyParents)[number];

/**
 * The references these triggers enforce instead of foreign keys, each by
 * the debts' columns a delete of the parent looks up (gathered in
 * `src/statement-references.ts`).
 */
export const statementReferences = [
  { child: "debts", columns: ["company_id"], parent: "companies" },
  ...companyParents.map(({ table, column }) => ({ child: "debts", columns: ["company_id", column], parent: table })),
];

const violation = ({ column, noun }: CompanyParent) =>
  `raise foreign_key_violation using message = 'debts.${column} references no ${noun} of the debt''s company',
      table = 'debts', column = '${column}';`;

/** Per statement: every distinct (company, parent) pair of the written rows, the parents looked up by primary key. */
const statementCheck = (parent: CompanyParent) => `
  perform 1 from ${parent.table} where id = any (${parent.table}_named) for key share;
  if exists (
    select 1 from (select distinct company_id, ${parent.column} from written where ${parent.column} is not null) w
    where not exists (
      select 1 from ${parent.table} p
      where p.id = any (${parent.table}_named) and p.id = w.${parent.column} and p.company_id = w.company_id)
  ) then
    ${violation(parent)}
  end if;`;

/** Per changed row: its parent, when it names one. */
const rowCheck = (parent: CompanyParent) => `
  if new.${parent.column} is not null then
    perform 1 from ${parent.table} where id = new.${parent.column} and company_id = new.company_id for key share;
    if not found then
      ${violation(parent)}
    end if;
  end if;`;

const companyCheckFailed = `raise foreign_key_violation using message = 'debts.company_id references a company that does not exist',
      table = 'debts', column = 'company_id';`;

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
create function debts_check_references() returns trigger language plpgsql as $$
declare
  companies_named bigint[];
  ${sql.raw(companyParents.map(({ table }) => `${table}_named bigint[];`).join("\n  "))}
  found integer;
begin
  -- One pass over the written rows; every lookup below is by primary key
  -- (id = any), so no join depends on the planner's estimates.
  select coalesce(array_agg(distinct company_id), '{}'),
    ${sql.raw(
      companyParents
        .map(({ column }) => `coalesce(array_agg(distinct ${column}) filter (where ${column} is not null), '{}')`)
        .join(",\n    "),
    )}
  into companies_named, ${sql.raw(companyParents.map(({ table }) => `${table}_named`).join(", "))}
  from written;
  select count(*) into found from (select 1 from companies where id = any (companies_named) for key share) locked;
  if found <> cardinality(companies_named) then
    ${sql.raw(companyCheckFailed)}
  end if;
  ${sql.raw(companyParents.map(statementCheck).join("\n"))}
  return null;
end $$;

create function debts_check_changed_references() returns trigger language plpgsql as $$
begin
  perform 1 from companies where id = new.company_id for key share;
  if not found then
    ${sql.raw(companyCheckFailed)}
  end if;
  ${sql.raw(companyParents.map(rowCheck).join("\n"))}
  return new;
end $$;

alter table debts drop constraint debts_company_id_fkey;
alter table debts drop constraint debts_creditor_id_fkey;
alter table debts drop constraint debts_campaign_id_fkey;
alter table debts drop constraint debts_timeline_id_fkey;

create trigger debts_references_insert after insert on debts
  referencing new table as written for each statement execute function debts_check_references();
create trigger debts_references_update after update on debts for each row
  when (old.company_id is distinct from new.company_id or old.creditor_id is distinct from new.creditor_id
    or old.campaign_id is distinct from new.campaign_id or old.timeline_id is distinct from new.timeline_id)
  execute function debts_check_changed_references();

create function companies_delete_debts() returns trigger language plpgsql as $$
begin
  delete from debts where company_id = old.id;
  return old;
end $$;
create trigger companies_debts_cascade before delete on companies
  for each row execute function companies_delete_debts();

create function debt_parents_still_named() returns trigger language plpgsql as $$
declare
  named boolean;
begin
  if tg_table_name = 'creditors' then
    select exists (select 1 from debts d join removed r on d.company_id = r.company_id and d.creditor_id = r.id) into named;
  elsif tg_table_name = 'campaigns' then
    select exists (select 1 from debts d join removed r on d.company_id = r.company_id and d.campaign_id = r.id) into named;
  else
    select exists (select 1 from debts d join removed r on d.company_id = r.company_id and d.timeline_id = r.id) into named;
  end if;
  if named then
    raise foreign_key_violation using
      message = format('a deleted %s is still named by debts', tg_table_name), table = tg_table_name, column = 'id';
  end if;
  return null;
end $$;
create trigger creditors_debts_restrict after delete on creditors
  referencing old table as removed for each statement execute function debt_parents_still_named();
create trigger campaigns_debts_restrict after delete on campaigns
  referencing old table as removed for each statement execute function debt_parents_still_named();
create trigger timelines_debts_restrict after delete on timelines
  referencing old table as removed for each statement execute function debt_parents_still_named();

create trigger creditors_key_is_fixed before update of id on creditors
  for each row execute function parent_key_is_fixed();
create trigger campaigns_key_is_fixed before update of id on campaigns
  for each row execute function parent_key_is_fixed();
create trigger timelines_key_is_fixed before update of id on timelines
  for each row execute function parent_key_is_fixed();
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
drop trigger if exists creditors_key_is_fixed on creditors;
drop trigger if exists campaigns_key_is_fixed on campaigns;
drop trigger if exists timelines_key_is_fixed on timelines;
drop trigger if exists creditors_debts_restrict on creditors;
drop trigger if exists campaigns_debts_restrict on campaigns;
drop trigger if exists timelines_debts_restrict on timelines;
drop trigger if exists companies_debts_cascade on companies;
drop trigger if exists debts_references_insert on debts;
drop trigger if exists debts_references_update on debts;
drop function if exists debt_parents_still_named();
drop function if exists companies_delete_debts();
drop function if exists debts_check_changed_references();
drop function if exists debts_check_references();
alter table debts add constraint debts_company_id_fkey
  foreign key (company_id) references companies (id) on delete cascade;
alter table debts add constraint debts_creditor_id_fkey foreign key (creditor_id) references creditors (id);
alter table debts add constraint debts_campaign_id_fkey foreign key (campaign_id) references campaigns (id);
alter table debts add constraint debts_timeline_id_fkey foreign key (timeline_id) references timelines (id);
`.execute(db);
};
