/**
 * Every reference a delete of its parent follows gets an index on the child
 * that leads with the referencing columns (docs/decisions/0026), as
 * `packages/db/test/reference-indexes.test.ts` requires of every foreign key
 * and every per-statement reference. Without one, the parent's delete (a
 * foreign key's action, or 0010's, 0011's and 0013's triggers) reads the
 * whole child table, or the whole company's part of it, once per statement
 * or once per deleted row.
 *
 * The defect that found them: deleting an OAuth client clears
 * `integration_client_pk` in `payments` (0010's trigger) and `snapshots` (a
 * foreign key), and no index led with that column, so the delete read every
 * company's payments and snapshots, the two largest tables. The client is in
 * the authentication directory (docs/decisions/0023), so these two lookups
 * cannot name a company: the two indexes lead with the client, the
 * documented exception to the company-first rule of the migrations test.
 *
 * - `payments`: partial, `where integration_client_pk is not null`. The
 *   delete only looks for non-null values, and payments hold many rows
 *   without a client: a payment not recorded by a snapshot need not name
 *   one, and a deleted client's payments are kept
 *   with the column cleared, for accounting, for ever. Each clear then
 *   removes the row from the index instead of adding a null entry to it.
 * - `snapshots`: full. Every snapshot is written with the client that sent
 *   it (the column is null only for snapshots of a deleted client), so a
 *   partial index would hold the same entries, and the foreign key's own
 *   lookup needs no predicate proof to use it.
 *
 * The others the catalog test found, each nullable column's index partial
 * (`where column is not null`) for the same reason as the payments':
 * - tenant references looked up within the company (a debt's detections
 *   and requests, a followup's detections and credit transactions, a
 *   creditor's or timeline's campaigns, an import's or timeline's debts):
 *   these read the company's part of the child through the primary key
 *   before, not the whole table; they lead with `company_id`;
 * - the authentication directory's references to a company (grants, codes,
 *   tokens: `company_id` alone), to a client (codes, tokens), to a grant
 *   (codes, whose delete the hourly purge runs for every expired grant) and
 *   to a user (grants, codes, login sessions, a client's creator): a user
 *   or client is named by id alone, so those lead with it (listed in the
 *   migrations test's exceptions).
 *
 * `create index` in this transaction takes a SHARE lock on each table until
 * it commits: writes to it wait, reads go on (docs/operations.md, Upgrades).
 */
import { type Kysely, sql } from "kysely";

interface ReferenceIndex {
  readonly name: string;
  readonly table: string;
  readonly columns: ReadonlyArray<string>;
  /** The nullable referencing column: the index holds only the rows that name a parent. */
  readonly nonNull?: string;
}

const indexes: ReadonlyArray<ReferenceIndex> = [
  {
    name: "payments_integration_client_idx",
    table: "payments",
    columns: ["integration_client_pk"],
    nonNull: "integration_client_pk",
  },
  { name: "snapshots_integration_client_idx", table: "snapshots", columns: ["integration_client_pk"] },

  { name: "ai_detections_debt_idx", table: "ai_detections", columns: ["company_id", "debt_id"] },
  {
    name: "ai_detections_followup_idx",
    table: "ai_detections",
    columns: ["company_id", "followup_id"],
    nonNull: "followup_id",
  },
  { name: "campaigns_creditor_idx", table: "campaigns", columns: ["company_id", "creditor_id"] },
  { name: "campaigns_timeline_idx", table: "campaigns", columns: ["company_id", "timeline_id"] },
  {
    name: "credit_transactions_followup_idx",
    table: "credit_transactions",
    columns: ["company_id", "followup_id"],
    nonNull: "followup_id",
  },
  { name: "debtor_requests_debt_idx", table: "debtor_requests", columns: ["company_id", "debt_id"] },
  { name: "debts_import_idx", table: "debts", columns: ["company_id", "import_id"], nonNull: "import_id" },
  { name: "debts_timeline_idx", table: "debts", columns: ["company_id", "timeline_id"], nonNull: "timeline_id" },

  { name: "oauth_grants_company_idx", table: "oauth_grants", columns: ["company_id"] },
  { name: "oauth_grants_user_idx", table: "oauth_grants", columns: ["user_id"], nonNull: "user_id" },
  { name: "oauth_codes_company_idx", table: "oauth_authorization_codes", columns: ["company_id"] },
  { name: "oauth_codes_client_idx", table: "oauth_authorization_codes", columns: ["client_pk"] },
  { name: "oauth_codes_grant_idx", table: "oauth_authorization_codes", columns: ["grant_id"], nonNull: "grant_id" },
  { name: "oauth_codes_user_idx", table: "oauth_authorization_codes", columns: ["user_id"] },
  { name: "oauth_access_tokens_company_idx", table: "oauth_access_tokens", columns: ["company_id"] },
  { name: "oauth_access_tokens_client_idx", table: "oauth_access_tokens", columns: ["client_pk"] },
  { name: "oauth_refresh_tokens_company_idx", table: "oauth_refresh_tokens", columns: ["company_id"] },
  { name: "oauth_refresh_tokens_client_idx", table: "oauth_refresh_tokens", columns: ["client_pk"] },
  // Its (company_id, user_id) index serves the company's delete, not a user's.
  { name: "oauth_login_sessions_by_user_idx", table: "oauth_login_sessions", columns: ["user_id"] },
  {
    name: "oauth_clients_created_by_idx",
    table: "oauth_clients",
    columns: ["created_by_user_id"],
    nonNull: "created_by_user_id",
  },
];

const create = ({ name, table, columns, nonNull }: ReferenceIndex) =>
  `create index ${name} on ${table} (${columns.join(", ")})${nonNull === undefined ? "" : ` where ${nonNull} is not null`};`;

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`${sql.raw(indexes.map(create).join("\n"))}`.execute(db);
};

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`${sql.raw(indexes.map(({ name }) => `drop index if exists ${name};`).join("\n"))}`.execute(db);
};
