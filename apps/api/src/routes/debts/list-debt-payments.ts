/**
 * GET /debts/{id}/payments (docs/decisions/0112): a page of the payments recorded on
 * the debt, plus, for a grouped debt, the installment payments recorded on
 * any debt of its group (the shared plan debt); see `listDebtPayments`.
 */
import type { Endpoints } from "@dc/contract";
import { messages, paginationOf } from "@dc/contract";
import { findDebtKey, listDebtPayments as listPaymentsOfDebt } from "@dc/db";
import { NotFound } from "../../http/api-error.ts";
import type { HandlerOf } from "../../http/handler.ts";
import { presentPayment } from "../../presenters/present-payment.ts";

export const listDebtPayments: HandlerOf<Endpoints["listDebtPayments"]> = async ({
  params,
  query,
  principal,
  services,
}) => {
  const { companyId } = principal;
  const debtId = services.ids.decode("debt", params.id);
  if (debtId === undefined) throw new NotFound({ message: messages.debtNotFound });
  const debt = await findDebtKey(services.db, companyId, debtId);
  if (debt === undefined) throw new NotFound({ message: messages.debtNotFound });
  const { rows, total } = await listPaymentsOfDebt(
    services.db,
    { companyId, debtId, groupId: debt.group_id, externalPaymentId: query.external_payment_id },
    query,
  );
  return {
    body: {
      error: false,
      data: rows.map((row) => presentPayment(services.ids, row)),
      pagination: paginationOf(query, total),
    },
  };
};
