/** A payment's wire form (docs/decisions/0112): encrypted debt and installment ids, the amount in major units. */
import type { Payment } from "@dc/contract";
import type { DomainIds as Ids, listDebtPayments } from "@dc/db";
import { Money } from "@dc/domain";

type PaymentRow = Awaited<ReturnType<typeof listDebtPayments>>["rows"][number];

export const presentPayment = (ids: Ids, row: PaymentRow): Payment => ({
  id: row.id,
  debt_id: ids.encode("debt", row.debt_id),
  installment_id: row.installment_id === null ? null : ids.encode("installment", row.installment_id),
  external_payment_id: row.external_payment_id,
  provider: row.provider,
  amount: Money.fromMinor(row.amount_minor, row.currency),
  currency: row.currency,
  status: row.status,
  paid_at: row.paid_at,
});
