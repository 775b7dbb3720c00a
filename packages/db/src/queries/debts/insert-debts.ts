/**
 * Set-based debt creation, shared by the api (single and batch create) and
 * the snapshot worker: ids are allocated up front in one round trip, then
 * every row goes in with one `insert ... select from unnest(...)` (one array
 * parameter per column, so the statement size does not grow with the row
 * count and the 65,535-parameter limit never applies). Rows whose
 * `internal_id` is already taken by an api debt of the same creditor are
 * skipped, never an error (`debts_api_internal_id_key`, migration 0002).
 */
import { type Kysely, sql } from "kysely";
import type { Database, PersonColumns } from "../../schema.ts";
import { personColumnTypes } from "../person-columns.ts";

/** One debt to insert, person columns included; `id` comes from `allocateDebtIds`. */
export interface DebtInsertRow extends Readonly<PersonColumns> {
  readonly id: number;
  readonly company_id: number;
  readonly creditor_id: number;
  readonly debtor_id: number | null;
  readonly campaign_id: number | null;
  readonly timeline_id: number | null;
  readonly import_id: string | null;
  readonly status: string;
  readonly is_credit_note: boolean;
  readonly credited_invoice_reference: string | null;
  readonly amount_minor: number;
  readonly balance_minor: number;
  readonly currency: string;
  readonly amount_text: string;
  readonly object: string | null;
  readonly internal_id: string | null;
  readonly invoice_reference: string | null;
  readonly debtor_reference: string | null;
  readonly invoice_date: string | null;
  readonly due_date: string | null;
  readonly iban: string | null;
  readonly company: string | null;
  readonly payment_link: string | null;
  /** Serialized JSON object. */
  readonly metadata: string;
  /** Serialized JSON object, or null. */
  readonly email_validation: string | null;
  readonly timeline_start_mode: string | null;
  readonly accept_expensive_destination: boolean;
  readonly import_date: Date;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** Column -> PostgreSQL array type of its unnest parameter. */
const columns: ReadonlyArray<readonly [keyof DebtInsertRow, string]> = [
  ["id", "int8"],
  ["company_id", "int8"],
  ["creditor_id", "int8"],
  ["debtor_id", "int8"],
  ["campaign_id", "int8"],
  ["timeline_id", "int8"],
  ["import_id", "uuid"],
  ["status", "text"],
  ["is_credit_note", "bool"],
  ["credited_invoice_reference", "text"],
  ...personColumnTypes,
  ["amount_minor", "int8"],
  ["balance_minor", "int8"],
  ["currency", "text"],
  ["amount_text", "text"],
  ["object", "text"],
  ["internal_id", "text"],
  ["invoice_reference", "text"],
  ["debtor_reference", "text"],
  ["invoice_date", "date"],
  ["due_date", "date"],
  ["iban", "text"],
  ["company", "text"],
  ["payment_link", "text"],
  ["metadata", "jsonb"],
  ["email_validation", "jsonb"],
  ["timeline_start_mode", "text"],
  ["accept_expensive_destination", "bool"],
  ["import_date", "timestamptz"],
  ["created_at", "timestamptz"],
  ["updated_at", "timestamptz"],
];

const toParameter = (value: DebtInsertRow[keyof DebtInsertRow]) =>
  value instanceof Date ? value.toISOString() : value;

/** Code-unit order of two optional strings, absent last: the same total order in every process. */
export const compareKeys = (a: string | null, b: string | null): number =>
  a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;

/**
 * Inserts `rows` in one statement and returns the ids actually inserted: a
 * row whose (company, creditor, internal_id) an api debt already holds is
 * left out (a concurrent request won the race).
 *
 * Rows go in sorted by (creditor, internal_id): a row waits on a concurrent
 * transaction's uncommitted row with the same key, so two batches naming the
 * same ids in different orders would wait on each other, a deadlock that
 * fails one of them with a 500. In one order, one simply waits.
 */
export const insertDebts = async (
  db: Kysely<Database>,
  unsorted: ReadonlyArray<DebtInsertRow>,
): Promise<Set<number>> => {
  if (unsorted.length === 0) return new Set();
  const rows = [...unsorted].sort(
    (a, b) => a.company_id - b.company_id || a.creditor_id - b.creditor_id || compareKeys(a.internal_id, b.internal_id),
  );
  const names = sql.join(columns.map(([name]) => sql.ref(name)));
  const arrays = sql.join(
    columns.map(([name, type]) => sql`${rows.map((row) => toParameter(row[name]))}::${sql.raw(type)}[]`),
  );
  const { rows: inserted } = await sql<{ id: number }>`
    insert into debts (${names}) overriding system value
    select * from unnest(${arrays})
    on conflict (company_id, creditor_id, internal_id) where campaign_id is null and internal_id is not null do nothing
    returning id
  `.execute(db);
  return new Set(inserted.map((row) => Number(row.id)));
};
