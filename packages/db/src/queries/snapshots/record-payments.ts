/**
 * The payment records of a snapshot (contract 2.7), in one statement: paid
 * installments first, each at most once per integration and debt (the
 * `payments_external_id_key` index; a payment id the debt already has is
 * skipped), then the direct part of each balance change and each settlement.
 * A skipped installment's amount moves into its debt's direct record, so for
 * every debt `amount - sum(payments) = balance` holds exactly
 * (docs/decisions/0351). Rows travel as one array parameter per column
 * (array-literals.ts).
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "../../schema.ts";
import { integerArray, textArray } from "../array-literals.ts";

/** Provider label of every payment a snapshot records (docs/decisions/0350). */
export const SNAPSHOT_PROVIDER = "snapshot";

export interface PaymentScope {
  readonly companyId: number;
  readonly snapshotId: number;
  readonly integrationClientPk: number | null;
  readonly now: Date;
}

/** A paid installment new to its debt. */
export interface InstallmentPaymentRecord {
  readonly debtId: number;
  /** The new installment row, or null when the row's plan was cancelled (no installment is stored). */
  readonly installmentId: number | null;
  readonly externalPaymentId: string;
  readonly amountMinor: number;
  readonly currency: string;
  /** Timestamp text PostgreSQL reads exactly. */
  readonly paidAt: string;
}

/**
 * The rest of a debt's balance decrease: `directMinor` (negative for an
 * increase) plus whatever part of `installmentMinor` was not recorded.
 */
export interface BalancePaymentRecord {
  readonly debtId: number;
  readonly kind: "balance_delta" | "settlement";
  readonly currency: string;
  readonly directMinor: number;
  readonly installmentMinor: number;
}

export interface RecordedPayments {
  readonly installments: number;
  readonly balance: number;
  /** Every payment row written (installments first), for `payment.recorded`. */
  readonly ids: ReadonlyArray<string>;
}

/**
 * Records the payments. A non-zero balance record is `succeeded` when
 * positive and an `adjustment` (negative amount) when the balance rose;
 * its `paid_at` is the processing time.
 */
export const recordSnapshotPayments = async (
  trx: Kysely<Database>,
  scope: PaymentScope,
  installments: ReadonlyArray<InstallmentPaymentRecord>,
  balances: ReadonlyArray<BalancePaymentRecord>,
): Promise<RecordedPayments> => {
  if (installments.length === 0 && balances.length === 0) return { installments: 0, balance: 0, ids: [] };
  const now = scope.now.toISOString();
  const { rows } = await sql<{ installments: number; balance: number; ids: ReadonlyArray<string> }>`
    with inst as (
      insert into payments (company_id, debt_id, installment_id, integration_client_pk, snapshot_id,
        external_payment_id, provider, kind, amount_minor, currency, status, paid_at, created_at)
      select ${scope.companyId}, r."debtId", r."installmentId", ${scope.integrationClientPk}::int8,
        ${scope.snapshotId}::int8, r."externalPaymentId", ${SNAPSHOT_PROVIDER}, 'installment', r."amountMinor",
        r.currency, 'succeeded', r."paidAt", ${now}::timestamptz
      from unnest(${integerArray(installments.map((p) => p.debtId))}::int8[],
        ${integerArray(installments.map((p) => p.installmentId))}::int8[],
        ${textArray(installments.map((p) => p.externalPaymentId))}::text[],
        ${integerArray(installments.map((p) => p.amountMinor))}::int8[],
        ${textArray(installments.map((p) => p.currency))}::text[],
        ${textArray(installments.map((p) => p.paidAt))}::timestamptz[])
        as r("debtId", "installmentId", "externalPaymentId", "amountMinor", currency, "paidAt")
      on conflict (company_id, (coalesce(integration_client_pk, 0)), debt_id, external_payment_id)
        where external_payment_id is not null do nothing
      returning id, debt_id, amount_minor
    ), recorded as (
      select debt_id, sum(amount_minor)::int8 as amount_minor from inst group by debt_id
    ), balance as (
      select r."debtId" as debt_id, r.kind, r.currency,
        r."directMinor" + r."installmentMinor" - coalesce(d.amount_minor, 0) as amount_minor
      from unnest(${integerArray(balances.map((p) => p.debtId))}::int8[], ${textArray(balances.map((p) => p.kind))}::text[],
        ${textArray(balances.map((p) => p.currency))}::text[], ${integerArray(balances.map((p) => p.directMinor))}::int8[],
        ${integerArray(balances.map((p) => p.installmentMinor))}::int8[])
        as r("debtId", kind, currency, "directMinor", "installmentMinor")
      left join recorded d on d.debt_id = r."debtId"
    ), direct as (
      insert into payments (company_id, debt_id, integration_client_pk, snapshot_id, provider, kind, amount_minor,
        currency, status, paid_at, created_at)
      select ${scope.companyId}, debt_id, ${scope.integrationClientPk}::int8, ${scope.snapshotId}::int8,
        ${SNAPSHOT_PROVIDER}, kind, amount_minor, currency,
        case when amount_minor > 0 then 'succeeded' else 'adjustment' end, ${now}::timestamptz, ${now}::timestamptz
      from balance where amount_minor <> 0
      returning id
    )
    select (select count(*) from inst)::int4 as installments, (select count(*) from direct)::int4 as balance,
      coalesce((select json_agg(id) from (select id from inst union all select id from direct) as written), '[]') as ids
  `.execute(trx);
  return rows[0] ?? { installments: 0, balance: 0, ids: [] };
};
