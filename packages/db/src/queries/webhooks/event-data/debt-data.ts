/**
 * `data` of `debt.created`, `debt.updated` and `debt.settled`: the debt as
 * GET /debts/{id} returns it (contract 2.3), for many debts in one
 * statement; and `data` of `debt.deleted`, read before the delete.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../../schema.ts";
import {
  type DebtLinks,
  debtViewsOf,
  type DebtView,
  presentDebtView,
  type RawDebtView,
  toDebtView,
} from "../../debts/debt-views.ts";
import { type EventIds, isoOffset } from "./wire.ts";

/**
 * The wire form of one debt view: the api's own presenter (debt-views.ts),
 * with timestamps formatted as the api's response schema formats them and
 * `payment_link` as the reads present it, signed at `links.now`.
 */
export const debtJson = (ids: EventIds, view: DebtView, collectionAgency: boolean, links: DebtLinks): Record<string, unknown> => ({
  ...presentDebtView(ids, view, collectionAgency, isoOffset, links),
});

/**
 * The `data` of each debt of `debtIds` (of `companyId`), keyed by debt id;
 * unknown ids are absent. Read it after the change, in its transaction;
 * `links.now` is the event's time.
 */
export const debtEventData = async (
  db: Kysely<Database>,
  ids: EventIds,
  companyId: number,
  debtIds: ReadonlyArray<number>,
  links: DebtLinks,
): Promise<Map<number, Record<string, unknown>>> => {
  if (debtIds.length === 0) return new Map();
  const page = sql`select id from debts where company_id = ${companyId} and id = any (${[...debtIds]}::bigint[])`;
  const { rows } = await sql<RawDebtView & { collection_agency: boolean }>`
    select v.*, (select is_collection_agency from companies where id = ${companyId}) as collection_agency
    from (${debtViewsOf(companyId, page)}) as v`.execute(db);
  return new Map(rows.map((row) => [row.id, debtJson(ids, toDebtView(row), row.collection_agency, links)]));
};

/**
 * The `data` of `debt.deleted` for each debt of `debtIds`: its ids and
 * references (the debt itself is gone). Read it BEFORE deleting.
 */
export const deletedDebtEventData = async (
  db: Kysely<Database>,
  ids: EventIds,
  companyId: number,
  debtIds: ReadonlyArray<number>,
  deletedAt: Date,
): Promise<Map<number, Record<string, unknown>>> => {
  if (debtIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("debts")
    .select(["id", "creditor_id", "internal_id", "invoice_reference", "debtor_reference"])
    .where("company_id", "=", companyId)
    .where("id", "in", [...debtIds])
    .execute();
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: ids.encode("debt", row.id),
        creditor_id: ids.encode("creditor", row.creditor_id),
        internal_id: row.internal_id,
        invoice_reference: row.invoice_reference,
        debtor_reference: row.debtor_reference,
        deleted_at: isoOffset(deletedAt),
      },
    ]),
  );
};
