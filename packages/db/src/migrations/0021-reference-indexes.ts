/**
 * Gives every reference that a delete of its parent follows an index on the
 * child leading with the referencing columns (docs/decisions/0026), as
 * `packages/db/test/reference-indexes.test.ts` requires. Without one, the
 * parent's delete (a foreign key's action, or the triggers of 0010, 0011 and
 * 0013) reads the whole child table, or the company's part of it, per
 * statement or per deleted row.
 *
 * - Tenant references looked up within the company lead with `company_id`.
 * - References to the authentication directory (a client, grant or user,
 *   named by id alone, docs/decisions/0023) lead with the parent's id: the
 *   documented exceptions to the company-first rule of the migrations test.
 *   Deleting an OAuth client clears `integration_client_pk` in `payments`
 *   and `snapshots`, the two largest tables.
 * - A nullable column's index is partial (`where column is not null`): a
 *   delete looks only for non-null values, and a clear then removes the row
 *   from the index. `snapshots_integration_client_idx` is full, since every
 *   snapshot names its client and the foreign key's lookup needs no
 *   predicate proof to use it.
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
