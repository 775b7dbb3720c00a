/**
 * Every tenant table's primary key is (company_id, id) and every foreign key
 * between tenant tables names the company on both sides (DESIGN.md 6,
 * docs/decisions/0023): the schema can then be distributed by `company_id`
 * (Citus needs the distribution column in every primary and unique key and
 * in every foreign key between distributed tables) without a rewrite, and a
 * child row cannot name another company's parent.
 *
 * - The primary key of each table in `tenantTables` becomes (company_id,
 *   id). Ids and their defaults (identities, `time_ordered_uuid()`) stay as
 *   they are. Where 0018 built a unique (company_id, id) index (timelines,
 *   timepoints, snapshots) it becomes the primary key as it is; the
 *   `(company_id, id)` lookup indexes of 0001 are the new key and go.
 * - The foreign keys in `tenantReferences` become (company_id, column) ->
 *   (company_id, id), with their `on delete` kept; `set null` names the
 *   column alone (PostgreSQL 15), so a deleted parent never clears the
 *   child's company.
 * - The per-statement reference checks (0011, 0013, 0016) lock the parents
 *   they name by (company, id) instead of by id alone, which no index
 *   serves any more.
 *
 * The authentication directory (users, OAuth clients, grants, codes,
 * tokens, login sessions) keeps its keys: it is read before the company is
 * known (docs/decisions/0023).
 */
import { type Kysely, sql } from "kysely";

/** Tenant tables whose primary key was `id` alone. */
const tenantTables = [
  "creditors",
  "timelines",
  "timeline_timepoints",
  "timeline_actions",
  "campaigns",
  "debtors",
  "debt_groups",
  "import_batches",
  "debts",
  "payment_plans",
  "installments",
  "payments",
  "followups",
  "credit_transactions",
  "debtor_requests",
  "ai_detections",
  "snapshots",
  "webhook_endpoints",
  "webhook_events",
  "webhook_deliveries",
  "webhook_delivery_attempts",
] as const;

/** Unique (company_id, id) indexes of 0018 that become the primary key as they are. */
const keyIndexes: Readonly<Record<string, string>> = {
  timelines: "timelines_company_id_key",
  timeline_timepoints: "timeline_timepoints_company_id_key",
  snapshots: "snapshots_company_id_key",
};

/** Non-unique (company_id, id) indexes of 0001: the new primary key serves them. */
const redundantIndexes = [
  { name: "creditors_company_idx", table: "creditors" },
  { name: "debtors_company_idx", table: "debtors" },
  { name: "webhook_endpoints_company_idx", table: "webhook_endpoints" },
] as const;

interface Reference {
  readonly child: string;
  readonly column: string;
  readonly parent: string;
  readonly onDelete: "no action" | "cascade" | "set null";
  /** The constraint's name before this migration (0001's default names, 0018's). */
  readonly before: string;
}

const tenantReferences: ReadonlyArray<Reference> = [
  {
    child: "campaigns",
    column: "creditor_id",
    parent: "creditors",
    onDelete: "no action",
    before: "campaigns_creditor_id_fkey",
  },
  {
    child: "campaigns",
    column: "timeline_id",
    parent: "timelines",
    onDelete: "no action",
    before: "campaigns_timeline_id_fkey",
  },
  { child: "debts", column: "debtor_id", parent: "debtors", onDelete: "set null", before: "debts_debtor_id_fkey" },
  { child: "debts", column: "group_id", parent: "debt_groups", onDelete: "set null", before: "debts_group_id_fkey" },
  {
    child: "debts",
    column: "import_id",
    parent: "import_batches",
    onDelete: "set null",
    before: "debts_import_id_fkey",
  },
  { child: "followups", column: "debt_id", parent: "debts", onDelete: "cascade", before: "followups_debt_id_fkey" },
  {
    child: "credit_transactions",
    column: "followup_id",
    parent: "followups",
    onDelete: "set null",
    before: "credit_transactions_followup_id_fkey",
  },
  {
    child: "debtor_requests",
    column: "debt_id",
    parent: "debts",
    onDelete: "cascade",
    before: "debtor_requests_debt_id_fkey",
  },
  {
    child: "ai_detections",
    column: "debt_id",
    parent: "debts",
    onDelete: "cascade",
    before: "ai_detections_debt_id_fkey",
  },
  {
    child: "ai_detections",
    column: "followup_id",
    parent: "followups",
    onDelete: "set null",
    before: "ai_detections_followup_id_fkey",
  },
  {
    child: "snapshots",
    column: "campaign_id",
    parent: "campaigns",
    onDelete: "cascade",
    before: "snapshots_campaign_id_fkey",
  },
  {
    child: "creditor_debt_stats",
    column: "creditor_id",
    parent: "creditors",
    onDelete: "cascade",
    before: "creditor_debt_stats_creditor_id_fkey",
  },
  {
    child: "timeline_timepoints",
    column: "timeline_id",
    parent: "timelines",
    onDelete: "cascade",
    before: "timeline_timepoints_timeline_fkey",
  },
  {
    child: "timeline_actions",
    column: "timepoint_id",
    parent: "timeline_timepoints",
    onDelete: "cascade",
    before: "timeline_actions_timepoint_fkey",
  },
  {
    child: "snapshot_chunks",
    column: "snapshot_id",
    parent: "snapshots",
    onDelete: "cascade",
    before: "snapshot_chunks_snapshot_fkey",
  },
];

/** 0018's composite keys referenced its (company_id, id) indexes; the older ones referenced `id`. */
const composite018 = new Set([
  "timeline_timepoints_timeline_fkey",
  "timeline_actions_timepoint_fkey",
  "snapshot_chunks_snapshot_fkey",
]);

const scopedName = ({ child, column }: Reference) => `${child}_${column.replace(/_id$/, "")}_company_fkey`;

const onDeleteClause = ({ onDelete, column }: Reference, scoped: boolean): string =>
  onDelete === "no action"
    ? ""
    : onDelete === "cascade"
      ? " on delete cascade"
      : scoped
        ? ` on delete set null (${column})`
        : " on delete set null";

/**
 * One textual change to a reference-check function, applied to its stored
 * definition (`pg_get_functiondef`, SET options included) and undone the
 * same way; a definition that does not hold `from` fails the migration.
 */
export interface FunctionEdit {
  readonly fn: string;
  readonly from: string;
  readonly to: string;
}

const lockByPrimaryKey = (parent: string, named: string, companies: string): FunctionEdit => ({
  fn: "",
  from: `perform 1 from ${parent} where id = any (${named}) for key share;`,
  to: `perform 1 from ${parent} where company_id = any (${companies}) and id = any (${named}) for key share;`,
});

const writtenCompanies = "array(select distinct company_id from written)";

export const functionEdits: ReadonlyArray<FunctionEdit> = [
  { ...lockByPrimaryKey("creditors", "creditors_named", "companies_named"), fn: "debts_check_references" },
  { ...lockByPrimaryKey("campaigns", "campaigns_named", "companies_named"), fn: "debts_check_references" },
  { ...lockByPrimaryKey("timelines", "timelines_named", "companies_named"), fn: "debts_check_references" },
  { ...lockByPrimaryKey("debts", "named", writtenCompanies), fn: "payment_plans_debt_id_check" },
  { ...lockByPrimaryKey("payment_plans", "named", writtenCompanies), fn: "installments_payment_plan_id_check" },
  { ...lockByPrimaryKey("installments", "named", writtenCompanies), fn: "payments_installment_id_check" },
  { ...lockByPrimaryKey("webhook_endpoints", "named", writtenCompanies), fn: "webhook_deliveries_endpoint_id_check" },
  { ...lockByPrimaryKey("webhook_events", "named", writtenCompanies), fn: "webhook_deliveries_event_id_check" },
  {
    fn: "webhook_delivery_attempts_delivery_id_check",
    from: "perform 1 from webhook_deliveries where id in (select distinct delivery_id from written) for key share;",
    to:
      `perform 1 from webhook_deliveries where company_id = any (${writtenCompanies})` +
      " and id = any (array(select distinct delivery_id from written)) for key share;",
  },
];

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

export const editFunction = (fn: string, from: string, to: string) => `
do $edit$
declare
  definition text := pg_get_functiondef(${literal(fn)}::regproc);
begin
  if position(${literal(from)} in definition) = 0 then
    raise exception 'function % does not hold the text this migration changes', ${literal(fn)};
  end if;
  execute replace(definition, ${literal(from)}, ${literal(to)});
end $edit$;`;

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
${sql.raw(tenantReferences.map(({ child, before }) => `alter table ${child} drop constraint ${before};`).join("\n"))}

${sql.raw(
  tenantTables
    .map((table) => {
      const index = keyIndexes[table];
      return index === undefined
        ? `alter table ${table} drop constraint ${table}_pkey, add constraint ${table}_pkey primary key (company_id, id);`
        : `alter table ${table} drop constraint ${table}_pkey;
alter index ${index} rename to ${table}_pkey;
alter table ${table} add constraint ${table}_pkey primary key using index ${table}_pkey;`;
    })
    .join("\n"),
)}
${sql.raw(redundantIndexes.map(({ name }) => `drop index ${name};`).join("\n"))}

${sql.raw(
  tenantReferences
    .map(
      (reference) => `alter table ${reference.child} add constraint ${scopedName(reference)}
  foreign key (company_id, ${reference.column}) references ${reference.parent} (company_id, id)${onDeleteClause(reference, true)};`,
    )
    .join("\n"),
)}

${sql.raw(functionEdits.map(({ fn, from, to }) => editFunction(fn, from, to)).join("\n"))}
`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
${sql.raw(functionEdits.map(({ fn, from, to }) => editFunction(fn, to, from)).join("\n"))}

${sql.raw(tenantReferences.map((reference) => `alter table ${reference.child} drop constraint ${scopedName(reference)};`).join("\n"))}

${sql.raw(redundantIndexes.map(({ name, table }) => `create index ${name} on ${table} (company_id, id);`).join("\n"))}
${sql.raw(
  tenantTables
    .map((table) => {
      const index = keyIndexes[table];
      return index === undefined
        ? `alter table ${table} drop constraint ${table}_pkey, add constraint ${table}_pkey primary key (id);`
        : `alter table ${table} drop constraint ${table}_pkey;
alter table ${table} add constraint ${table}_pkey primary key (id);
create unique index ${index} on ${table} (company_id, id);`;
    })
    .join("\n"),
)}

${sql.raw(
  tenantReferences
    .map((reference) =>
      composite018.has(reference.before)
        ? `alter table ${reference.child} add constraint ${reference.before}
  foreign key (company_id, ${reference.column}) references ${reference.parent} (company_id, id)${onDeleteClause(reference, false)};`
        : `alter table ${reference.child} add constraint ${reference.before}
  foreign key (${reference.column}) references ${reference.parent} (id)${onDeleteClause(reference, false)};`,
    )
    .join("\n"),
)}
`.execute(db);
};
