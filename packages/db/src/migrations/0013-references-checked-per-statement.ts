/**
 * The per-row foreign keys left on the ledger (a plan's debt, an
 * installment's plan, a payment's installment) and on the webhook outbox (a
 * delivery's endpoint and event, an event's or delivery's company) are
 * checked once per statement, within the row's company (docs/decisions/0367),
 * as 0010 and 0011 did for companies, clients, creditors, campaigns and
 * timelines.
 *
 * A snapshot inserts 2,000 plans, 4,000 installments and 20,000 payments in
 * three statements; their foreign keys ran 26,000 lookups (the payments'
 * even for the 18,000 rows without an installment), about 45 ms of the
 * apply. With an endpoint subscribed to every event type it also records
 * about 42,000 events and 42,000 deliveries, whose keys ran 168,000. Per
 * relation:
 *
 * - insert: the distinct parents the new rows name are locked `for key
 *   share` (as a foreign-key check locks them) and must exist in the row's
 *   company, or the statement fails with SQLSTATE 23503 and writes nothing;
 * - update: only rows whose key or company changes are checked (a `when`
 *   clause: the status updates of plans, installments and deliveries never
 *   call it);
 * - deleting parents acts once per statement: a debt's plans, a plan's
 *   installments, an endpoint's or an event's deliveries are deleted with
 *   it, a company's events and deliveries with the company, and payments of
 *   a deleted installment keep their history with `installment_id` cleared
 *   (the foreign keys' `on delete cascade` and `on delete set null`, which
 *   ran one query per deleted row, the payments' one a scan of the whole
 *   ledger for lack of an index);
 * - a parent's id cannot change.
 *
 * Every per-statement check, these and those of 0010 and 0011, runs with
 * its plan pinned to primary-key probes (see `statementCheck`).
 */
import { type Kysely, sql } from "kysely";

interface Relation {
  readonly child: string;
  readonly column: string;
  readonly parent: string;
  readonly noun: string;
  readonly onDelete: "cascade" | "set null";
}

const relations: ReadonlyArray<Relation> = [
  { child: "payment_plans", column: "debt_id", parent: "debts", noun: "debt", onDelete: "cascade" },
  {
    child: "installments",
    column: "payment_plan_id",
    parent: "payment_plans",
    noun: "payment plan",
    onDelete: "cascade",
  },
  { child: "payments", column: "installment_id", parent: "installments", noun: "installment", onDelete: "set null" },
  {
    child: "webhook_deliveries",
    column: "endpoint_id",
    parent: "webhook_endpoints",
    noun: "webhook endpoint",
    onDelete: "cascade",
  },
  {
    child: "webhook_deliveries",
    column: "event_id",
    parent: "webhook_events",
    noun: "webhook event",
    onDelete: "cascade",
  },
];

/** Tables whose `company_id` gets 0010's per-statement check instead of a foreign key. */
const companyChecked = ["webhook_events", "webhook_deliveries"] as const;

/**
 * The references these triggers enforce instead of foreign keys, each by
 * the child's columns a delete of the parent looks up (gathered in
 * `src/statement-references.ts`).
 */
export const statementReferences = [
  ...relations.map(({ child, column, parent }) => ({ child, columns: ["company_id", column], parent })),
  ...companyChecked.map((child) => ({ child, columns: ["company_id"], parent: "companies" })),
];

/** Each parent once (one fixed-key trigger per table). */
const parents = [...new Set(relations.map(({ parent }) => parent))];

const name = ({ child, column }: Relation) => `${child}_${column}`;

/** The statement-level checks of migrations 0010 and 0011. */
const earlierChecks = ["ledger_check_company_reference", "payments_check_client_reference", "debts_check_references"];

const violation = ({ child, column, noun }: Relation) =>
  `raise foreign_key_violation using message = '${child}.${column} references no ${noun} of the row''s company',
      table = '${child}', column = '${column}';`;

/**
 * Per statement: the distinct parents of the written rows, looked up by
 * primary key. The function pins the plan: from a cached generic plan,
 * PostgreSQL guesses 10 ids in `named` and may scan the whole parent table
 * testing each row against every id (2,000 ids x 24,000 installments: 220 ms,
 * growing with the table), and the snapshot apply turns nested loops off
 * (decision 0363). Probing the primary key once per id is right whatever
 * the sizes.
 */
const statementCheck = (relation: Relation) => {
  const { parent, column } = relation;
  return `
create function ${name(relation)}_check() returns trigger language plpgsql
  set enable_seqscan = off set enable_nestloop = on as $$
declare
  named bigint[];
begin
  select coalesce(array_agg(distinct ${column}) filter (where ${column} is not null), '{}') into named from written;
  if cardinality(named) = 0 then
    return null;
  end if;
  perform 1 from ${parent} where id = any (named) for key share;
  if exists (
    select 1 from (select distinct company_id, ${column} from written where ${column} is not null) w
    where not exists (select 1 from ${parent} p where p.id = w.${column} and p.company_id = w.company_id)
  ) then
    ${violation(relation)}
  end if;
  return null;
end $$;
create trigger ${name(relation)}_insert after insert on ${relation.child}
  referencing new table as written for each statement execute function ${name(relation)}_check();`;
};

/** Per changed row: its parent, when it names one. */
const rowCheck = (relation: Relation) => {
  const { parent, column } = relation;
  return `
create function ${name(relation)}_check_changed() returns trigger language plpgsql as $$
begin
  if new.${column} is not null then
    perform 1 from ${parent} where id = new.${column} and company_id = new.company_id for key share;
    if not found then
      ${violation(relation)}
    end if;
  end if;
  return new;
end $$;
create trigger ${name(relation)}_update after update on ${relation.child} for each row
  when (old.${column} is distinct from new.${column} or old.company_id is distinct from new.company_id)
  execute function ${name(relation)}_check_changed();`;
};

/** Per deleting statement on the parent: what the foreign key's `on delete` did. */
const deleteAction = (relation: Relation) => {
  const { child, column, parent, onDelete } = relation;
  const action =
    onDelete === "cascade"
      ? `delete from ${child} c using removed r where c.company_id = r.company_id and c.${column} = r.id;`
      : `update ${child} c set ${column} = null from removed r where c.company_id = r.company_id and c.${column} = r.id;`;
  return `
create function ${parent}_release_${name(relation)}() returns trigger language plpgsql as $$
begin
  ${action}
  return null;
end $$;
create trigger ${parent}_${name(relation)}_on_delete after delete on ${parent}
  referencing old table as removed for each statement execute function ${parent}_release_${name(relation)}();`;
};

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
${sql.raw(relations.map(({ child, column }) => `alter table ${child} drop constraint ${child}_${column}_fkey;`).join("\n"))}
${sql.raw(companyChecked.map((table) => `alter table ${table} drop constraint ${table}_company_id_fkey;`).join("\n"))}

-- The delete actions look children up by (company, parent): plans of a debt
-- (the partial unique index covers active plans only) and payments of an
-- installment (only installment payments carry one).
create index payment_plans_debt_idx on payment_plans (company_id, debt_id);
create index payments_installment_idx on payments (company_id, installment_id) where installment_id is not null;

${sql.raw(relations.map((relation) => [statementCheck(relation), rowCheck(relation), deleteAction(relation)].join("\n")).join("\n"))}

${sql.raw(
  companyChecked
    .map(
      (table) => `create trigger ${table}_company_reference_insert after insert on ${table}
  referencing new table as written for each statement execute function ledger_check_company_reference();
create trigger ${table}_company_reference_update after update on ${table}
  referencing new table as written for each statement execute function ledger_check_company_reference();`,
    )
    .join("\n"),
)}
-- Was their foreign keys' "on delete cascade" (an event's deliveries also go with the event).
create function companies_delete_webhook_outbox() returns trigger language plpgsql as $$
begin
  delete from webhook_deliveries where company_id in (select id from removed);
  delete from webhook_events where company_id in (select id from removed);
  return null;
end $$;
create trigger companies_webhook_outbox_cascade after delete on companies
  referencing old table as removed for each statement execute function companies_delete_webhook_outbox();

-- The earlier per-statement checks (0010, 0011) get the same pinned plan:
-- their parents (companies, clients, creditors, campaigns, timelines) grow
-- with the number of tenants.
${sql.raw(earlierChecks.map((fn) => `alter function ${fn}() set enable_seqscan = off set enable_nestloop = on;`).join("\n"))}

${sql.raw(
  parents
    .map(
      (parent) => `create trigger ${parent}_key_is_fixed before update of id on ${parent}
  for each row execute function parent_key_is_fixed();`,
    )
    .join("\n"),
)}
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
${sql.raw(earlierChecks.map((fn) => `alter function ${fn}() reset enable_seqscan; alter function ${fn}() reset enable_nestloop;`).join("\n"))}
${sql.raw(parents.map((parent) => `drop trigger if exists ${parent}_key_is_fixed on ${parent};`).join("\n"))}
drop trigger if exists companies_webhook_outbox_cascade on companies;
drop function if exists companies_delete_webhook_outbox();
${sql.raw(
  companyChecked
    .map(
      (table) => `drop trigger if exists ${table}_company_reference_insert on ${table};
drop trigger if exists ${table}_company_reference_update on ${table};
alter table ${table} add constraint ${table}_company_id_fkey foreign key (company_id) references companies (id) on delete cascade;`,
    )
    .join("\n"),
)}
${sql.raw(
  relations
    .map(
      (relation) => `
drop trigger if exists ${relation.parent}_${name(relation)}_on_delete on ${relation.parent};
drop function if exists ${relation.parent}_release_${name(relation)}();
drop trigger if exists ${name(relation)}_update on ${relation.child};
drop function if exists ${name(relation)}_check_changed();
drop trigger if exists ${name(relation)}_insert on ${relation.child};
drop function if exists ${name(relation)}_check();
alter table ${relation.child} add constraint ${name(relation)}_fkey
  foreign key (${relation.column}) references ${relation.parent} (id) on delete ${relation.onDelete};`,
    )
    .join("\n"),
)}
drop index if exists payments_installment_idx;
drop index if exists payment_plans_debt_idx;
`.execute(db);
};
