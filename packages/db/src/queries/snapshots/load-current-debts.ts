/**
 * Current debts of a campaign as the reconciliation planner reads them
 * (identity, balance, currency, status, phone, active plan with its
 * installments): the shapes, and the whole campaign at once
 * (`loadCampaignDebts`, the reference state of the tests; the worker reads
 * a snapshot's debts chunk by chunk, matched-debts.ts).
 * Each query returns one JSON value: PostgreSQL builds it in C and V8
 * parses it natively, several times faster than node-postgres's per-field
 * parsing of 20,000 rows.
 * Nothing is locked here: the update that applies the plan checks that each
 * debt it changes still holds what was read (update-debts.ts), which costs
 * no extra write of every debt.
 */
import { DebtStatus, type PaymentPlan, type Reconciliation } from "@dc/domain";
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { canonicalInstantSql } from "./canonical-instant.ts";

/** Debtor contact fields a snapshot row may refresh. */
export interface DebtContact {
  readonly firstname: string | null;
  readonly lastname: string | null;
  readonly email: string | null;
  readonly phone: string | null;
}

export interface CampaignDebts {
  /** In id order. */
  readonly debts: ReadonlyArray<Reconciliation.CurrentDebt>;
  readonly contacts: ReadonlyMap<number, DebtContact>;
}

export interface DebtRow extends DebtContact {
  readonly id: number;
  readonly internal_id: string | null;
  readonly invoice_reference: string | null;
  readonly balance_minor: number;
  readonly currency: string;
  readonly status: string;
}

/** One installment of an active plan (all null for a plan without installments). */
export interface InstallmentRow {
  readonly debt_id: number;
  readonly plan_reference: string | null;
  readonly external_reference: string | null;
  readonly amount_minor: number | null;
  readonly payment_date: string | null;
  readonly status: "pending" | "paid" | "cancelled" | null;
  readonly paid_at: string | null;
  readonly external_payment_id: string | null;
}

/** The campaign's debts column by column; every column is null when the campaign has none. */
export type DebtColumns = readonly [
  ReadonlyArray<number> | null,
  ReadonlyArray<string | null> | null,
  ReadonlyArray<string | null> | null,
  ReadonlyArray<number> | null,
  ReadonlyArray<string> | null,
  ReadonlyArray<string> | null,
  ReadonlyArray<string | null> | null,
  ReadonlyArray<string | null> | null,
  ReadonlyArray<string | null> | null,
  ReadonlyArray<string | null> | null,
];

/** Rows from the columns, in id order (a sorted subquery feeds the aggregates; the order is checked, not assumed). */
export const debtRowsOf = (columns: DebtColumns | undefined): Array<DebtRow> => {
  if (columns === undefined || columns[0] === null) return [];
  const length = columns[0].length;
  if (columns.some((column) => column === null || column.length !== length)) throw new Error("misaligned debt columns");
  const [ids, internalIds, invoiceReferences, balances, currencies, statuses, firstnames, lastnames, emails, phones] =
    columns as { [K in keyof DebtColumns]: NonNullable<DebtColumns[K]> };
  const rows = ids.map((id, i): DebtRow => ({
    id,
    internal_id: internalIds[i] ?? null,
    invoice_reference: invoiceReferences[i] ?? null,
    balance_minor: balances[i] ?? 0,
    currency: currencies[i] ?? "",
    status: statuses[i] ?? "",
    firstname: firstnames[i] ?? null,
    lastname: lastnames[i] ?? null,
    email: emails[i] ?? null,
    phone: phones[i] ?? null,
  }));
  const ordered = rows.every((row, index) => index === 0 || (rows[index - 1]?.id ?? 0) < row.id);
  return ordered ? rows : rows.sort((a, b) => a.id - b.id);
};

const toStatus = (debt: DebtRow): DebtStatus.Status => {
  if (!DebtStatus.isStatus(debt.status)) throw new Error(`debt ${debt.id} has an unknown status "${debt.status}"`);
  return debt.status;
};

/**
 * Groups installment rows into each debt's active plan. Plans written by
 * other sources may lack references (read as `""`, which no row reference
 * equals, so a row plan replaces them) or hold `cancelled` installments,
 * which are no part of what a row can restate and are left out.
 */
export const plansByDebt = (rows: ReadonlyArray<InstallmentRow>): Map<number, PaymentPlan.LocalPlan> => {
  const plans = new Map<number, { externalReference: string; installments: Array<PaymentPlan.LocalInstallment> }>();
  for (const row of rows) {
    let plan = plans.get(row.debt_id);
    if (plan === undefined) {
      plan = { externalReference: row.plan_reference ?? "", installments: [] };
      plans.set(row.debt_id, plan);
    }
    if (row.status === "pending" || row.status === "paid") {
      plan.installments.push({
        externalReference: row.external_reference ?? "",
        amountMinor: Number(row.amount_minor),
        paymentDate: row.payment_date ?? "",
        status: row.status,
        paidAt: row.paid_at,
        externalPaymentId: row.external_payment_id,
      });
    }
  }
  return plans;
};

/** The campaign whose debts are read. */
export interface CampaignScope {
  readonly companyId: number;
  readonly campaignId: number;
}

/** The planner's debts from their rows (in id order) and their active plans by debt id. */
export const campaignDebtsOf = (
  debtRows: ReadonlyArray<DebtRow>,
  plans: ReadonlyMap<number, PaymentPlan.LocalPlan>,
): CampaignDebts => {
  const contacts = new Map<number, DebtContact>();
  const debts = debtRows.map((row): Reconciliation.CurrentDebt => {
    contacts.set(row.id, { firstname: row.firstname, lastname: row.lastname, email: row.email, phone: row.phone });
    return {
      id: row.id,
      internalId: row.internal_id,
      invoiceReference: row.invoice_reference,
      balanceMinor: row.balance_minor,
      currency: row.currency,
      status: toStatus(row),
      activePlan: plans.get(row.id) ?? null,
      phone: row.phone,
    };
  });
  return { debts, contacts };
};

/**
 * Every debt of the campaign, with its active plan, in two set-based
 * queries: the reference state of the tests (the worker reads a snapshot's
 * debts chunk by chunk, matched-debts.ts).
 */
export const loadCampaignDebts = async (
  trx: Kysely<Database>,
  companyId: number,
  campaignId: number,
): Promise<CampaignDebts> => {
  // One JSON array per column (PostgreSQL builds them in about half the time
  // of one object per debt, and V8 parses arrays of primitives fastest); the
  // aggregates read the same rows in the same order, so the columns align.
  const { rows: columnRows } = await sql<{ columns: DebtColumns }>`
    select json_build_array(json_agg(id), json_agg(internal_id), json_agg(invoice_reference), json_agg(balance_minor),
      json_agg(currency), json_agg(status), json_agg(firstname), json_agg(lastname), json_agg(email), json_agg(phone)
    ) as columns
    from (
      select id, internal_id, invoice_reference, balance_minor, currency, status, firstname, lastname, email, phone
      from debts where company_id = ${companyId} and campaign_id = ${campaignId} order by id
    ) campaign_debts
  `.execute(trx);
  const { rows: installmentRows } = await sql<{ installments: ReadonlyArray<InstallmentRow> | null }>`
    select json_agg(json_build_object(
      'debt_id', p.debt_id, 'plan_reference', p.external_reference, 'external_reference', i.external_reference,
      'amount_minor', i.amount_minor, 'payment_date', i.payment_date, 'status', i.status,
      'paid_at', ${canonicalInstantSql(sql`i.paid_at`)}, 'external_payment_id', i.external_payment_id
    ) order by p.debt_id, i.position) as installments
    from payment_plans p
    join debts d on d.company_id = p.company_id and d.id = p.debt_id
    left join installments i on i.company_id = p.company_id and i.payment_plan_id = p.id
    where p.company_id = ${companyId} and p.status = 'active' and d.campaign_id = ${campaignId}
  `.execute(trx);
  return campaignDebtsOf(debtRowsOf(columnRows[0]?.columns), plansByDebt(installmentRows[0]?.installments ?? []));
};
