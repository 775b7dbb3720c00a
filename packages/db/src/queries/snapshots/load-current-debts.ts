/**
 * Current debts of a campaign as the reconciliation planner reads them
 * (identity, balance, currency, status, phone, active plan with its
 * installments), in two set-based queries whatever their number: the debts
 * one stored chunk of a snapshot names (`loadChunkDebts`, how the worker
 * reads a snapshot's batch), debts by id (`loadDebtsById`, its omitted
 * debts), or the whole campaign (`loadCampaignDebts`, the reference state
 * of the tests).
 * Each query returns one JSON value: PostgreSQL builds it in C and V8
 * parses it natively, several times faster than node-postgres's per-field
 * parsing of 20,000 rows.
 * Nothing is locked here: the update that applies the plan checks that each
 * debt it changes still holds what was read (update-debts.ts), which costs
 * no extra write of every debt.
 */
import { DebtStatus, type PaymentPlan, type Reconciliation } from "@dc/domain";
import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { integerArray } from "../array-literals.ts";
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

interface InstallmentRow {
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
const plansByDebt = (rows: ReadonlyArray<InstallmentRow>): Map<number, PaymentPlan.LocalPlan> => {
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

/** The debt columns the planner and the contact refresh read, for `d`. */
const debtColumns = sql`d.id, d.internal_id, d.invoice_reference, d.balance_minor, d.currency, d.status, d.firstname,
  d.lastname, d.email, d.phone`;

/**
 * The campaign's debts `found` returns (a query of `debtColumns`), with
 * their active plans. Call inside the applying transaction.
 */
const loadDebts = async (
  trx: Kysely<Database>,
  companyId: number,
  found: RawBuilder<unknown>,
): Promise<CampaignDebts> => {
  // One JSON array per column (PostgreSQL builds them in about half the time
  // of one object per debt, and V8 parses arrays of primitives fastest); the
  // aggregates read the same rows in the same order, so the columns align.
  const { rows: columnRows } = await sql<{ columns: DebtColumns }>`
    select json_build_array(json_agg(id), json_agg(internal_id), json_agg(invoice_reference), json_agg(balance_minor),
      json_agg(currency), json_agg(status), json_agg(firstname), json_agg(lastname), json_agg(email), json_agg(phone)
    ) as columns
    from (select * from (${found}) found order by id) campaign_debts
  `.execute(trx);
  const debtRows = debtRowsOf(columnRows[0]?.columns);
  // The plans of each of these debts by the debt's key, the active one kept, then its installments by theirs:
  // lookups fenced from the join (offset 0) whose only conditions are the key. A condition on the status too
  // would let statistics lagging behind a young campaign, which price every index of the company at one row,
  // pick the company's index by status and scan every active plan of the company once per debt.
  const { rows: installmentRows } =
    debtRows.length === 0
      ? { rows: [] }
      : await sql<{ installments: ReadonlyArray<InstallmentRow> | null }>`
    select json_agg(json_build_object(
      'debt_id', p.debt_id, 'plan_reference', p.external_reference, 'external_reference', i.external_reference,
      'amount_minor', i.amount_minor, 'payment_date', i.payment_date, 'status', i.status,
      'paid_at', ${canonicalInstantSql(sql`i.paid_at`)}, 'external_payment_id', i.external_payment_id
    ) order by p.debt_id, i.position) as installments
    from unnest(${integerArray(debtRows.map((row) => row.id))}::int8[]) as k(debt_id)
    cross join lateral (
      select p.id, p.debt_id, p.external_reference, p.status from payment_plans p
      where p.company_id = ${companyId} and p.debt_id = k.debt_id
      offset 0
    ) p
    left join lateral (
      select i.* from installments i where i.company_id = ${companyId} and i.payment_plan_id = p.id
      offset 0
    ) i on true
    where p.status = 'active'
  `.execute(trx);
  const plans = plansByDebt(installmentRows[0]?.installments ?? []);
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

/** Every debt of the campaign, with its active plan. */
export const loadCampaignDebts = (
  trx: Kysely<Database>,
  companyId: number,
  campaignId: number,
): Promise<CampaignDebts> =>
  loadDebts(
    trx,
    companyId,
    sql`select ${debtColumns} from debts d where d.company_id = ${companyId} and d.campaign_id = ${campaignId}`,
  );

/**
 * The campaign's debts that the rows of one stored chunk may match or name:
 * each debt whose `internal_id` or `invoice_reference` one of the chunk's
 * rows carries (the identity arrays stored with the chunk, so the read
 * runs while the rows are validated). Both columns are unique within a
 * campaign. Each key is looked up on its own in the company's index of
 * that column (a lateral lookup fenced by `offset 0`), the campaign checked
 * on what it finds: with the campaign among the lookup's conditions,
 * statistics that know nothing of a campaign (one growing inside the
 * applying transaction is one row to them) price the campaign's index as
 * well as the key's, and a scan of the campaign per key is quadratic.
 */
export const loadChunkDebts = (
  trx: Kysely<Database>,
  { companyId, campaignId }: CampaignScope,
  chunk: { readonly snapshotId: number; readonly chunkIndex: number },
): Promise<CampaignDebts> => {
  const byKey = (column: "internal_id" | "invoice_reference") => sql`
    select m.id, m.internal_id, m.invoice_reference, m.balance_minor, m.currency, m.status, m.firstname, m.lastname,
      m.email, m.phone
    from chunk_keys k cross join lateral (
      select ${debtColumns}, d.campaign_id from debts d
      where d.company_id = ${companyId} and d.${sql.ref(column)} = k.${sql.ref(column)}
      offset 0
    ) m
    where k.${sql.ref(column)} is not null and m.campaign_id = ${campaignId}`;
  return loadDebts(
    trx,
    companyId,
    sql`
      with chunk_keys as materialized (
        select unnest(c.internal_ids) as internal_id, unnest(c.invoice_references) as invoice_reference
        from snapshot_chunks c
        where c.company_id = ${companyId} and c.snapshot_id = ${chunk.snapshotId} and c.chunk_index = ${chunk.chunkIndex}
      )
      ${byKey("internal_id")}
      union
      ${byKey("invoice_reference")}`,
  );
};

/** The campaign's debts with these ids. */
export const loadDebtsById = (
  trx: Kysely<Database>,
  { companyId, campaignId }: CampaignScope,
  ids: ReadonlyArray<number>,
): Promise<CampaignDebts> =>
  ids.length === 0
    ? Promise.resolve({ debts: [], contacts: new Map() })
    : loadDebts(
        trx,
        companyId,
        sql`
          select m.id, m.internal_id, m.invoice_reference, m.balance_minor, m.currency, m.status, m.firstname,
            m.lastname, m.email, m.phone
          from unnest(${integerArray(ids)}::int8[]) as k(id) cross join lateral (
            select ${debtColumns}, d.campaign_id from debts d where d.company_id = ${companyId} and d.id = k.id
            offset 0
          ) m
          where m.campaign_id = ${campaignId}`,
      );
