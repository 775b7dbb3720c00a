/**
 * One debt of a company as a view (the same enrichment as the debt lists,
 * debt-views.ts) and whether the company is a collection agency, in one
 * statement, prepared for a generic plan (docs/decisions/0017).
 */
import { sql } from "kysely";
import { PREPARED } from "../../connection.ts";
import type { Db } from "../executor.ts";
import { type DebtView, debtViewsOf, type RawDebtView, toDebtView } from "./debt-views.ts";

/** One debt of the company as a view, or undefined (unknown or another company's). */
export const findDebtView = async (
  db: Db,
  companyId: number,
  debtId: number,
): Promise<{ readonly view: DebtView; readonly collectionAgency: boolean } | undefined> => {
  const page = sql`select id from debts where id = ${debtId} and company_id = ${companyId}`;
  const { rows } = await sql<RawDebtView & { collection_agency: boolean }>`${sql.raw(PREPARED)}
    select v.*, (select is_collection_agency from companies where id = ${companyId}) as collection_agency
    from (${debtViewsOf(companyId, page)}) as v
  `.execute(db);
  const row = rows[0];
  return row === undefined ? undefined : { view: toDebtView(row), collectionAgency: row.collection_agency };
};
