/**
 * The debts a snapshot creates, in one `insert ... select from unnest(...)`:
 * one array parameter per column whatever the row count (array-literals.ts).
 * The campaign's identity keys (0001) make a second creation of the same
 * identity fail instead of doubling a debt.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { integerArray, textArray } from "../array-literals.ts";

/** What every debt of one snapshot shares. */
export interface CreationContext {
  readonly companyId: number;
  readonly creditorId: number;
  readonly campaignId: number;
  readonly timelineId: number;
  readonly status: string;
  readonly now: Date;
}

/** One debt to create. */
export interface SnapshotDebt {
  readonly internalId: string | null;
  readonly invoiceReference: string | null;
  readonly amountMinor: number;
  readonly balanceMinor: number;
  readonly currency: string;
  readonly amountText: string;
  readonly firstname: string | null;
  readonly lastname: string | null;
  readonly email: string | null;
  readonly phone: string | null;
}

/**
 * Inserts `debts` and returns their ids in the same order. Rows are matched
 * back by identity (`internal_id`, else `invoice_reference`), unique within
 * a snapshot, because `returning` promises no order.
 */
export const insertSnapshotDebts = async (
  trx: Kysely<Database>,
  context: CreationContext,
  debts: ReadonlyArray<SnapshotDebt>,
): Promise<Array<number>> => {
  if (debts.length === 0) return [];
  const now = context.now.toISOString();
  const column = <K extends keyof SnapshotDebt>(key: K) => debts.map((debt) => debt[key]);
  const { rows } = await sql<{ id: number; internal_id: string | null; invoice_reference: string | null }>`
    insert into debts (company_id, creditor_id, campaign_id, timeline_id, status, amount_minor, balance_minor, currency,
      amount_text, internal_id, invoice_reference, firstname, lastname, email, phone, import_date, created_at, updated_at)
    select ${context.companyId}, ${context.creditorId}, ${context.campaignId}, ${context.timelineId}, ${context.status},
      r."amountMinor", r."balanceMinor", r.currency, r."amountText", r."internalId", r."invoiceReference",
      r.firstname, r.lastname, r.email, r.phone, ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
    from unnest(${integerArray(column("amountMinor"))}::int8[], ${integerArray(column("balanceMinor"))}::int8[],
      ${textArray(column("currency"))}::text[], ${textArray(column("amountText"))}::text[],
      ${textArray(column("internalId"))}::text[], ${textArray(column("invoiceReference"))}::text[],
      ${textArray(column("firstname"))}::text[], ${textArray(column("lastname"))}::text[],
      ${textArray(column("email"))}::text[], ${textArray(column("phone"))}::text[])
      as r("amountMinor", "balanceMinor", currency, "amountText", "internalId", "invoiceReference", firstname, lastname,
        email, phone)
    returning id, internal_id, invoice_reference
  `.execute(trx);
  const keyOf = (internalId: string | null, invoiceReference: string | null): string =>
    internalId !== null ? `i\u0000${internalId}` : `r\u0000${invoiceReference ?? ""}`;
  const ids = new Map(rows.map((row) => [keyOf(row.internal_id, row.invoice_reference), row.id]));
  return debts.map((debt) => {
    const id = ids.get(keyOf(debt.internalId, debt.invoiceReference));
    if (id === undefined) throw new Error("a created debt was not returned by the insert");
    return id;
  });
};
