/**
 * The references that 0010, 0011 and 0013 checked with statement-level
 * triggers are PostgreSQL foreign keys again (docs/decisions/0361, 0364,
 * 0367): the triggers' gain was under the 15% a second implementation must
 * earn (docs/benchmarks.md, "Second implementations: A/B").
 *
 * - Every reference keeps the `on delete` its triggers enforced: a
 *   company's debts, ledger and webhook outbox, a debt's plans, a plan's
 *   installments and an endpoint's or event's deliveries go with their
 *   parent; a deleted installment or OAuth client is cleared from the
 *   payments naming it (`set null` of that column alone, so the company
 *   stays); a creditor, campaign or timeline that debts name cannot be
 *   deleted (`no action`).
 * - References between tenant tables name the company on both sides, as
 *   0020's do: a row cannot name another company's parent.
 * - A violation is PostgreSQL's own (SQLSTATE 23503, the constraint named).
 * - The lookup indexes a parent's delete follows already exist (0013's
 *   `payment_plans_debt_idx` and `payments_installment_idx`, 0021's, the
 *   children's keys); `reference-indexes.test.ts` requires them.
 *
 * The keys are added `not valid`: adding one then takes a brief SHARE ROW
 * EXCLUSIVE lock on child and parent without reading the child, and
 * 0024-validate-foreign-keys reads the existing rows in its own transaction
 * under locks that let writes go on. New writes are checked from this
 * migration's commit on; the rows already stored were checked by the
 * triggers.
 *
 * Two functions of those migrations stay: `parent_key_is_fixed()`, which
 * 0016's webhook deliveries still use, and 0011's `companies_debts_cascade`,
 * which deletes a company's debts before the company row goes. The debt
 * counters' delete trigger (0014) adds its deltas to `creditor_debt_stats`
 * with an upsert, which the counters' own foreign key to the company
 * refuses once the company is gone, as it is when the keys' cascade runs.
 */
import { type Kysely, sql } from "kysely";
import * as ledgerReferenceChecks from "./0010-ledger-reference-checks.ts";
import * as debtReferenceChecks from "./0011-debt-reference-checks.ts";
import * as referenceChecks from "./0013-references-checked-per-statement.ts";
import { editFunction, functionEdits } from "./0020-tenant-keys.ts";

interface ForeignKey {
  readonly child: string;
  /** The column naming the parent; tenant parents are named with the child's `company_id` before it. */
  readonly column: string;
  readonly parent: string;
  readonly onDelete: "no action" | "cascade" | "set null";
}

/** Parents keyed by `id` alone: the company, and the authentication directory's clients. */
const globalParents = new Set(["companies", "oauth_clients"]);

/**
 * Each named `<child>_<column>_fkey`, the name the triggers' migrations
 * dropped, so that `down` can hand the schema back to their `up`.
 */
export const foreignKeys: ReadonlyArray<ForeignKey> = [
  // 0010
  { child: "payments", column: "company_id", parent: "companies", onDelete: "cascade" },
  { child: "payments", column: "integration_client_pk", parent: "oauth_clients", onDelete: "set null" },
  { child: "payment_plans", column: "company_id", parent: "companies", onDelete: "cascade" },
  { child: "installments", column: "company_id", parent: "companies", onDelete: "cascade" },
  // 0011
  { child: "debts", column: "company_id", parent: "companies", onDelete: "cascade" },
  { child: "debts", column: "creditor_id", parent: "creditors", onDelete: "no action" },
  { child: "debts", column: "campaign_id", parent: "campaigns", onDelete: "no action" },
  { child: "debts", column: "timeline_id", parent: "timelines", onDelete: "no action" },
  // 0013
  { child: "payment_plans", column: "debt_id", parent: "debts", onDelete: "cascade" },
  { child: "installments", column: "payment_plan_id", parent: "payment_plans", onDelete: "cascade" },
  { child: "payments", column: "installment_id", parent: "installments", onDelete: "set null" },
  { child: "webhook_deliveries", column: "endpoint_id", parent: "webhook_endpoints", onDelete: "cascade" },
  { child: "webhook_deliveries", column: "event_id", parent: "webhook_events", onDelete: "cascade" },
  { child: "webhook_events", column: "company_id", parent: "companies", onDelete: "cascade" },
  { child: "webhook_deliveries", column: "company_id", parent: "companies", onDelete: "cascade" },
];

export const constraintName = ({ child, column }: ForeignKey) => `${child}_${column}_fkey`;

const addForeignKey = (key: ForeignKey) => {
  const { child, column, parent, onDelete } = key;
  const global = globalParents.has(parent);
  const columns = global ? column : `company_id, ${column}`;
  const referenced = global ? "id" : "company_id, id";
  const action = onDelete === "no action" ? "" : onDelete === "cascade" ? " on delete cascade" : ` on delete set null (${column})`;
  return `alter table ${child} add constraint ${constraintName(key)}
  foreign key (${columns}) references ${parent} (${referenced})${action} not valid;`;
};

/** 0013's per-relation functions: the insert check, the update check, the parent's delete action. */
const relationFunctions = foreignKeys
  .filter(({ child, column }) => column !== "company_id" && child !== "debts" && column !== "integration_client_pk")
  .flatMap(({ child, column, parent }) => [
    `${child}_${column}_check`,
    `${child}_${column}_check_changed`,
    `${parent}_release_${child}_${column}`,
  ]);

/** Every function of 0010, 0011 and 0013; dropping one drops the triggers that call it. */
const checkFunctions = [
  "ledger_check_company_reference",
  "payments_check_client_reference",
  "companies_delete_payments",
  "oauth_clients_release_payments",
  "debts_check_references",
  "debts_check_changed_references",
  "debt_parents_still_named",
  "companies_delete_webhook_outbox",
  ...relationFunctions,
];

/** The tables whose id `parent_key_is_fixed()` guarded for 0010, 0011 and 0013. */
const fixedKeyParents = [
  "companies",
  "oauth_clients",
  "creditors",
  "campaigns",
  "timelines",
  "debts",
  "payment_plans",
  "installments",
  "webhook_endpoints",
  "webhook_events",
];

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
${sql.raw(fixedKeyParents.map((table) => `drop trigger ${table}_key_is_fixed on ${table};`).join("\n"))}
${sql.raw(checkFunctions.map((fn) => `drop function ${fn}() cascade;`).join("\n"))}
${sql.raw(foreignKeys.map(addForeignKey).join("\n"))}
`.execute(db);
};

/**
 * The triggers as 0010, 0011 and 0013 created them and 0020 edited them:
 * their own `up` drops these foreign keys by name and creates them again.
 * `parent_key_is_fixed()` goes and comes back with 0010, and 0016's trigger
 * on webhook deliveries with it; `companies_delete_debts()` comes back with
 * 0011; 0013 creates its two lookup indexes again.
 */
export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
drop trigger webhook_deliveries_key_is_fixed on webhook_deliveries;
drop function parent_key_is_fixed();
drop function companies_delete_debts() cascade;
drop index payment_plans_debt_idx;
drop index payments_installment_idx;
`.execute(db);
  await ledgerReferenceChecks.up(db);
  await debtReferenceChecks.up(db);
  await referenceChecks.up(db);
  await sql`
create trigger webhook_deliveries_key_is_fixed before update of id on webhook_deliveries
  for each row execute function parent_key_is_fixed();
${sql.raw(
  functionEdits
    .filter(({ fn }) => checkFunctions.includes(fn))
    .map(({ fn, from, to }) => editFunction(fn, from, to))
    .join("\n"),
)}
`.execute(db);
};
