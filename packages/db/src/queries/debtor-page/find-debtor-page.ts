/**
 * Everything the debtor page shows of one debt, in one statement: the debt's
 * identity fields (for the identity check), what it is for, its amounts and
 * due date, the creditor and the company (its name, sandbox flag and plan
 * rules), the active plan's installments, the payments made, the channels
 * refused and the quiet hours chosen. Null when the debt is not the
 * company's (or is gone).
 */
import { sql } from "kysely";
import { companyClock } from "../enrollments/company-clock.ts";
import type { Db } from "../executor.ts";

export interface DebtorPageInstallment {
  readonly amount_minor: number;
  readonly payment_date: string;
  readonly status: "pending" | "paid" | "cancelled";
}

export interface DebtorPagePayment {
  readonly amount_minor: number;
  readonly currency: string;
  /** ISO 8601. */
  readonly paid_at: string;
  readonly status: string;
}

export interface DebtorPageView {
  readonly company_id: number;
  readonly debt_id: number;
  readonly company_name: string;
  readonly company_sandbox: boolean;
  /** The company's clock now (the sandbox clock for a sandbox company). */
  readonly now: Date;
  /** `engine_settings.payment_plans`, undecoded. */
  readonly plan_rules: unknown;
  readonly creditor_name: string;
  readonly status: string;
  readonly firstname: string | null;
  readonly lastname: string | null;
  readonly debtor_company: string | null;
  readonly postal_code: string | null;
  readonly birthdate: string | null;
  readonly country: string | null;
  readonly phone: string | null;
  readonly object: string | null;
  readonly invoice_reference: string | null;
  readonly amount_minor: number;
  readonly balance_minor: number;
  readonly currency: string;
  readonly due_date: string | null;
  readonly installments: ReadonlyArray<DebtorPageInstallment>;
  readonly payments: ReadonlyArray<DebtorPagePayment>;
  readonly opt_outs: ReadonlyArray<string>;
  readonly quiet_start: string | null;
  readonly quiet_end: string | null;
  /** Requests of the debtor still waiting for review, by type. */
  readonly open_requests: ReadonlyArray<string>;
}

/** The page of `debtId` of `companyId`, or undefined; `now` is the injected clock's time. */
export const findDebtorPage = async (
  db: Db,
  companyId: number,
  debtId: number,
  now: Date,
): Promise<DebtorPageView | undefined> => {
  const { rows } = await sql<DebtorPageView>`
    select d.company_id, d.id as debt_id, c.name as company_name, c.sandbox as company_sandbox,
      ${companyClock("c", now)} as now, c.engine_settings -> 'payment_plans' as plan_rules,
      coalesce(nullif(d.company, ''), cr.name) as creditor_name, d.status, d.firstname, d.lastname, d.debtor_company,
      d.postal_code, d.birthdate, d.country, d.phone, d.object, d.invoice_reference, d.amount_minor, d.balance_minor,
      d.currency, d.due_date,
      coalesce((
        select jsonb_agg(jsonb_build_object('amount_minor', i.amount_minor, 'payment_date', i.payment_date,
          'status', i.status) order by i.position)
        from payment_plans p join installments i on i.company_id = p.company_id and i.payment_plan_id = p.id
        where p.company_id = d.company_id and p.debt_id = d.id and p.status = 'active'
      ), '[]'::jsonb) as installments,
      coalesce((
        select jsonb_agg(jsonb_build_object('amount_minor', y.amount_minor, 'currency', y.currency,
          'paid_at', y.paid_at, 'status', y.status) order by y.paid_at desc, y.id desc)
        from payments y
        where y.company_id = d.company_id and y.debt_id = d.id and y.status = 'succeeded' and y.amount_minor > 0
      ), '[]'::jsonb) as payments,
      array(select o.channel from channel_opt_outs o where o.company_id = d.company_id and o.debt_id = d.id order by o.channel)
        as opt_outs,
      dp.quiet_start, dp.quiet_end,
      array(
        select distinct r.type from debtor_requests r
        where r.company_id = d.company_id and r.debt_id = d.id and r.review_status = 'suggested'
      ) as open_requests
    from debts d
    join companies c on c.id = d.company_id
    join creditors cr on cr.company_id = d.company_id and cr.id = d.creditor_id
    left join debtor_preferences dp on dp.company_id = d.company_id and dp.debt_id = d.id
    where d.company_id = ${companyId} and d.id = ${debtId}
  `.execute(db);
  return rows[0];
};
