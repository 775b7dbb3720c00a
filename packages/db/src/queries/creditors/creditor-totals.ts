/**
 * A creditor's debt totals from the maintained counters (docs/decisions/0100,
 * 0102, 0114): the debt count, and the remaining balances per currency and
 * altogether in major units. Balances are added in SQL numeric, exactly, and
 * leave the database as decimal text: the api turns each into a JSON number
 * once, the double nearest the exact total, however large it is.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { majorUnitsOf } from "../minor-factor.ts";

export interface CreditorTotals {
  readonly debts: number;
  /** Exact decimal text, major units; `"0"` without debts. */
  readonly balance: string;
  /** Currencies that have debts, in code order, each balance as exact decimal text. */
  readonly byCurrency: ReadonlyArray<{ readonly currency: string; readonly balance: string }>;
}

export const creditorTotals = async (
  db: Kysely<Database>,
  companyId: number,
  creditorId: number,
): Promise<CreditorTotals> => {
  const { rows } = await sql<{ currency: string; debts: number; balance: string; total: string }>`
    select c.currency, c.debts, c.balance::text as balance, (sum(c.balance) over ())::text as total
    from (
      select s.currency, sum(s.debt_count)::int8 as debts,
        ${majorUnitsOf(sql`sum(s.balance_minor)`, sql.ref("s.currency"))} as balance
      from creditor_debt_stats s
      where s.company_id = ${companyId} and s.creditor_id = ${creditorId}
      group by s.currency
      having sum(s.debt_count) <> 0
    ) as c
    order by c.currency
  `.execute(db);
  return {
    debts: rows.reduce((sum, row) => sum + row.debts, 0),
    balance: rows[0]?.total ?? "0",
    byCurrency: rows.map(({ currency, balance }) => ({ currency, balance })),
  };
};
