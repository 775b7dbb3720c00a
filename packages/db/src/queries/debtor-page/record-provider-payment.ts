/**
 * A payment a payment provider completed for a debt (the debtor page,
 * docs/decisions/0672), in one statement: the `payments` row (kind
 * `direct`, the provider's label and payment id) and the debt's lower
 * balance, `paid` once nothing is left. The `payments_external_id_key`
 * index (company, no integration, debt, external id) makes a replayed or
 * duplicated provider notification insert nothing and change nothing: the
 * result then says `recorded: false`.
 */
import { sql } from "kysely";
import { DebtStatus } from "@dc/domain";
import type { DbTransaction } from "../executor.ts";

export interface ProviderPayment {
  readonly companyId: number;
  readonly debtId: number;
  /** `stripe` or `sandbox`. */
  readonly provider: string;
  readonly externalPaymentId: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly paidAt: Date;
}

export type ProviderPaymentResult =
  | { readonly recorded: false }
  | {
      readonly recorded: true;
      readonly paymentId: string;
      /** The debt's balance after the payment, and whether it is now paid. */
      readonly balanceMinor: number;
      readonly paid: boolean;
    };

/** Statuses a payment may move to `paid` (DebtStatus.transitions). */
const payableStatuses = DebtStatus.statuses.filter((status) => DebtStatus.canTransition(status, DebtStatus.paid));

export const recordProviderPayment = async (trx: DbTransaction, payment: ProviderPayment): Promise<ProviderPaymentResult> => {
  const { rows } = await sql<{ payment_id: string; balance_minor: number; paid: boolean }>`
    with inserted as (
      insert into payments (company_id, debt_id, external_payment_id, provider, kind, amount_minor, currency, status,
        paid_at, created_at)
      select d.company_id, d.id, ${payment.externalPaymentId}, ${payment.provider}, 'direct', ${payment.amountMinor}::int8,
        ${payment.currency}, 'succeeded', ${payment.paidAt.toISOString()}::timestamptz, ${payment.paidAt.toISOString()}::timestamptz
      from debts d where d.company_id = ${payment.companyId} and d.id = ${payment.debtId}
      on conflict (company_id, (coalesce(integration_client_pk, 0)), debt_id, external_payment_id)
        where external_payment_id is not null do nothing
      returning id, debt_id, amount_minor
    ), updated as (
      update debts d set
        balance_minor = greatest(d.balance_minor - i.amount_minor, 0),
        status = case when d.balance_minor - i.amount_minor <= 0 and d.status = any (${`{${payableStatuses.join(",")}}`}::text[])
          then ${DebtStatus.paid} else d.status end,
        updated_at = ${payment.paidAt.toISOString()}::timestamptz
      from inserted i
      where d.company_id = ${payment.companyId} and d.id = i.debt_id
      returning d.balance_minor, d.status
    )
    select i.id as payment_id, u.balance_minor, u.status = ${DebtStatus.paid} as paid from inserted i cross join updated u
  `.execute(trx);
  const row = rows[0];
  return row === undefined
    ? { recorded: false }
    : { recorded: true, paymentId: row.payment_id, balanceMinor: row.balance_minor, paid: row.paid };
};
