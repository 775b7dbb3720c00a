/**
 * `debtEventData` for a snapshot's thousands of debts: the same payloads
 * (`debtJson` of the same `DebtView`), read in a time linear in the number
 * of debts. `debtViewsOf` finds each debt's plan with a lookup per debt that
 * PostgreSQL may answer by scanning every active plan of the company (it
 * does when the plans were inserted by the running transaction, which no
 * statistics know of yet): 20,000 debts times 2,000 plans would take seconds.
 * Here an ungrouped debt (the usual case) is read with its creditor, its own
 * active plan is read by one scan of the plans of all the debts, and the
 * two are joined in memory; grouped debts, whose plan may live on another
 * debt of the group, still go through `debtViewsOf`.
 */
import { type Kysely, sql } from "kysely";
import type { Database, Debt } from "../../../schema.ts";
import { type DebtLinks, debtViewsOf, type RawDebtView, toDebtView } from "../../debts/debt-views.ts";
import { debtJson } from "./debt-data.ts";
import type { EventIds } from "./wire.ts";

type DebtRow = Debt & { readonly creditor_name: string };

/**
 * The `data` of each debt of `debtIds` (of `companyId`), keyed by debt id,
 * equal to `debtEventData`'s; unknown ids are absent. Read it after the
 * change, in its transaction.
 */
export const debtEventDataBatch = async (
  db: Kysely<Database>,
  ids: EventIds,
  companyId: number,
  debtIds: ReadonlyArray<number>,
  links: DebtLinks,
): Promise<Map<number, Record<string, unknown>>> => {
  if (debtIds.length === 0) return new Map();
  const idArray = [...debtIds];
  const company = await db
    .selectFrom("companies")
    .select("is_collection_agency")
    .where("id", "=", companyId)
    .executeTakeFirst();
  const collectionAgency = company?.is_collection_agency ?? false;
  const { rows: debts } = await sql<DebtRow>`
    select d.*, c.name as creditor_name
    from debts d
    join creditors c on c.company_id = d.company_id and c.id = d.creditor_id
    where d.company_id = ${companyId} and d.id = any (${idArray}::bigint[]) and d.group_id is null`.execute(db);
  const { rows: plans } = await sql<{ debt_id: number; start_date: string | null }>`
    select debt_id, start_date from payment_plans
    where company_id = ${companyId} and status = 'active' and debt_id = any (${idArray}::bigint[])`.execute(db);
  const planOf = new Map(plans.map((plan) => [plan.debt_id, plan]));
  const grouped = sql`select id from debts where company_id = ${companyId} and id = any (${idArray}::bigint[]) and group_id is not null`;
  const { rows: groupedViews } = await sql<RawDebtView>`${debtViewsOf(companyId, grouped)}`.execute(db);

  const data = new Map<number, Record<string, unknown>>();
  for (const debt of debts) {
    const plan = planOf.get(debt.id);
    const view = toDebtView({
      ...debt,
      group_debt_ids: [debt.id],
      group_active_count: 0,
      payment_plan_active: plan !== undefined,
      plan_start_date: plan?.start_date ?? null,
    });
    data.set(debt.id, debtJson(ids, view, collectionAgency, links));
  }
  for (const row of groupedViews) data.set(row.id, debtJson(ids, toDebtView(row), collectionAgency, links));
  return data;
};
